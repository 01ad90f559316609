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

impl Snapshot {
    /// The oldest id it sees as running, or its `xmax` when none: every id before it
    /// had ended when it was taken.
    pub(crate) fn xmin(&self) -> Xid {
        self.active.first().copied().unwrap_or(self.xmax)
    }
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
    /// Per open transaction that took a snapshot, the oldest `xmin` of those it took: what
    /// it may still see as running (the horizon's part, as PostgreSQL's `PGPROC.xmin`).
    xmins: std::collections::BTreeMap<Xid, Xid>,
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
        self.xmins.remove(&xid);
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

    /// A snapshot for open transaction `xid`, which may use it until it ends: its `xmin`
    /// holds the horizon back until then.
    pub(crate) fn snapshot_for(&mut self, xid: Xid) -> Snapshot {
        assert_eq!(
            self.status(xid),
            Status::InProgress,
            "an open transaction's"
        );
        let snapshot = self.snapshot();
        let xmin = snapshot.xmin();
        let held = self.xmins.entry(xid).or_insert(xmin);
        *held = (*held).min(xmin);
        snapshot
    }

    /// The horizon: every transaction before it has ended, and every snapshot an open
    /// transaction holds sees each of them as ended (PostgreSQL's `GetOldestNonRemovable
    /// TransactionId`). A version deleted by a committed transaction before it is seen
    /// by no snapshot, now or later.
    ///
    /// A commit the WAL has not flushed holds it back too: a crash would turn it into an
    /// abort, and the versions it deleted must then be there again.
    pub(crate) fn horizon(&self) -> Xid {
        let open = self.owners.keys().next().copied();
        let held = self.xmins.values().min().copied();
        let unflushed = self.unflushed.iter().map(|(xid, _)| *xid).min();
        [open, held, unflushed]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(XID_FIRST + self.log.len() as Xid)
    }

    /// True when `xid` committed before `snapshot` was taken.
    pub(crate) fn sees(&self, snapshot: &Snapshot, xid: Xid) -> bool {
        xid < snapshot.xmax
            && snapshot.active.binary_search(&xid).is_err()
            && self.status(xid) == Status::Committed
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
    fn the_horizon_waits_for_open_transactions_and_the_snapshots_they_hold() {
        let mut txns = Transactions::default();
        let (a, b) = (txns.begin(1), txns.begin(2));
        assert_eq!(txns.horizon(), a);
        // b's snapshot sees a as running: a's end does not move the horizon past a.
        txns.snapshot_for(b);
        txns.end(a, true, true, 0);
        assert_eq!(txns.horizon(), a, "b's snapshot still sees a running");
        let c = txns.begin(3);
        txns.end(b, true, true, 0);
        assert_eq!(txns.horizon(), c);
        txns.end(c, false, true, 0);
        assert_eq!(txns.horizon(), c + 1, "none open: every id so far");
        // An asynchronous commit holds it back until the WAL writer flushes it.
        let d = txns.begin(4);
        txns.end(d, true, false, 0);
        assert_eq!(txns.horizon(), d);
        txns.flush();
        assert_eq!(txns.horizon(), d + 1);
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
