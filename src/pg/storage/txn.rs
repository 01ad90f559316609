//! Transactions as PostgreSQL keeps them: transaction ids handed out in order, a commit
//! log, snapshots (READ COMMITTED takes one per statement, REPEATABLE READ one per
//! transaction), and the write-ahead log's flush point that a crash falls back to.

/// A transaction id. 0 is "none" (an `xmax` never set); real ids start at 3, as
/// PostgreSQL's first normal one.
pub(crate) type Xid = u64;
pub(crate) const XID_NONE: Xid = 0;
const XID_FIRST: Xid = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    InProgress,
    Committed,
    Aborted,
}

/// What a statement sees: every transaction committed before it was taken.
#[derive(Clone, Debug)]
pub(crate) struct Snapshot {
    /// The first id not yet handed out when it was taken.
    pub xmax: Xid,
    /// Ids in progress when it was taken (sorted).
    pub active: Vec<Xid>,
}

/// The commit log and the id counter.
#[derive(Debug, Default)]
pub(crate) struct Transactions {
    /// Status of id `XID_FIRST + i`.
    log: Vec<Status>,
    /// The backend running each in-progress transaction.
    owners: std::collections::BTreeMap<Xid, u32>,
    /// Commit times (unix µs) of the commits after the last WAL flush, oldest first.
    unflushed: Vec<(Xid, i64)>,
}

impl Transactions {
    pub(crate) fn begin(&mut self, backend: u32) -> Xid {
        let xid = XID_FIRST + self.log.len() as Xid;
        self.log.push(Status::InProgress);
        self.owners.insert(xid, backend);
        xid
    }

    pub(crate) fn status(&self, xid: Xid) -> Status {
        assert!(xid >= XID_FIRST, "a real transaction id");
        self.log[(xid - XID_FIRST) as usize]
    }

    pub(crate) fn owner(&self, xid: Xid) -> Option<u32> {
        self.owners.get(&xid).copied()
    }

    /// Ends `xid`. A commit that is not synchronous waits in `unflushed` for the WAL
    /// writer; a synchronous one flushes everything before it too.
    pub(crate) fn end(&mut self, xid: Xid, commit: bool, synchronous: bool, at_us: i64) {
        assert_eq!(self.status(xid), Status::InProgress, "ends once");
        self.log[(xid - XID_FIRST) as usize] = if commit {
            Status::Committed
        } else {
            Status::Aborted
        };
        self.owners.remove(&xid);
        if commit && synchronous {
            self.unflushed.clear();
        } else if commit {
            self.unflushed.push((xid, at_us));
        }
    }

    /// The WAL writer flushed: every commit so far is durable.
    pub(crate) fn flush(&mut self) {
        self.unflushed.clear();
    }

    /// A crash: every transaction in progress is aborted, and every commit the WAL had not
    /// flushed is lost (its versions become as if aborted). Returns the first lost
    /// commit's time, if any.
    pub(crate) fn crash(&mut self) -> Option<i64> {
        let open: Vec<Xid> = self.owners.keys().copied().collect();
        for xid in open {
            self.end(xid, false, true, 0);
        }
        let lost = std::mem::take(&mut self.unflushed);
        for (xid, _) in &lost {
            self.log[(*xid - XID_FIRST) as usize] = Status::Aborted;
        }
        lost.first().map(|(_, at_us)| *at_us)
    }

    pub(crate) fn snapshot(&self) -> Snapshot {
        Snapshot {
            xmax: XID_FIRST + self.log.len() as Xid,
            active: self.owners.keys().copied().collect(),
        }
    }

    /// True when `xid` committed before `snapshot` was taken.
    pub(crate) fn sees(&self, snapshot: &Snapshot, xid: Xid) -> bool {
        xid < snapshot.xmax
            && snapshot.active.binary_search(&xid).is_err()
            && self.status(xid) == Status::Committed
    }

    /// The oldest id any open transaction may still need to see as in progress.
    pub(crate) fn oldest_open(&self) -> Xid {
        self.owners
            .keys()
            .next()
            .copied()
            .unwrap_or(XID_FIRST + self.log.len() as Xid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_sees_only_what_committed_before_it() {
        let mut txns = Transactions::default();
        let (a, b) = (txns.begin(1), txns.begin(2));
        txns.end(a, true, true, 0);
        let snapshot = txns.snapshot();
        txns.end(b, true, true, 0);
        assert!(txns.sees(&snapshot, a));
        assert!(!txns.sees(&snapshot, b), "b was in progress");
        assert!(txns.sees(&txns.snapshot(), b));
    }

    #[test]
    fn a_crash_loses_unflushed_commits_and_open_transactions() {
        let mut txns = Transactions::default();
        let (a, b, c) = (txns.begin(1), txns.begin(2), txns.begin(3));
        txns.end(a, true, false, 10);
        txns.flush();
        txns.end(b, true, false, 20);
        assert_eq!(txns.crash(), Some(20));
        assert_eq!(txns.status(a), Status::Committed);
        assert_eq!(txns.status(b), Status::Aborted);
        assert_eq!(txns.status(c), Status::Aborted);
    }
}
