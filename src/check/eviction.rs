//! `evicted`: data a read missed because Redis evicted a key of its session (or user)
//! under `maxmemory`. The rules that find a loss (`presence`, `memory`) ask here first
//! whether an eviction explains it; what one explains is `evicted` for a store whose
//! policy forbids eviction, and `Info::Evicted` for one that tolerates it. A loss no
//! recorded eviction explains stays what it was.

use super::index::Index;
use super::keys::{names_session, names_user};
use super::time::at;
use super::{Info, Subject, Verdict, Violation, ViolationClass};
use crate::contract::Eviction;
use crate::history::KeyEviction;

/// The first eviction of a key of `subject` within `from_us..=to_us`: after a write was
/// invoked and by the end of the read that missed it. A scan: it is asked only for data
/// already found missing, and a hand-written history need not keep time order.
pub(crate) fn first_eviction<'a>(
    idx: &Index<'a>,
    subject: &Subject,
    from_us: u64,
    to_us: u64,
) -> Option<&'a KeyEviction> {
    idx.evictions
        .iter()
        .filter(|e| (from_us..=to_us).contains(&e.at_us))
        .filter(|e| match subject {
            Subject::Session(session) => names_session(&e.key, session),
            Subject::User(user) => names_user(&e.key, user),
            Subject::Store => false,
        })
        .min_by_key(|e| e.at_us)
}

/// What one eviction explains: a violation or a note, as the store's policy says.
pub(crate) struct Explained<'e> {
    pub eviction: &'e KeyEviction,
    pub subject: Subject,
    pub op_indexes: Vec<usize>,
    pub message_ids: Vec<String>,
    /// What went missing, for the explanation (`read at 3.2 s (limit 5) is missing m1`).
    pub missing: String,
}

/// Reports `explained` by the store's declared [`Eviction`].
pub(crate) fn report(idx: &Index<'_>, explained: Explained<'_>, verdict: &mut Verdict) {
    let Explained {
        eviction,
        subject,
        mut op_indexes,
        mut message_ids,
        missing,
    } = explained;
    assert!(!message_ids.is_empty(), "an eviction explains some loss");
    match idx.policy.eviction {
        Eviction::Forbidden => verdict.violations.push(Violation::new(
            ViolationClass::Evicted,
            subject,
            op_indexes,
            message_ids,
            format!("{missing}: {}", describe(eviction)),
        )),
        Eviction::Tolerated => {
            op_indexes.sort_unstable();
            op_indexes.dedup();
            message_ids.sort();
            message_ids.dedup();
            verdict.info.push(Info::Evicted {
                subject,
                op_indexes,
                message_ids,
                key: eviction.key.clone(),
                evicted_at_us: eviction.at_us,
            });
        }
    }
}

/// `Redis evicted key chat:t0:s1 at 8.923 s under allkeys-lru (used_memory 1203456 >
/// maxmemory 1200000), and the store's policy forbids eviction`.
fn describe(eviction: &KeyEviction) -> String {
    format!(
        "Redis evicted key {} at {} under {} (used_memory {} > maxmemory {}), and the \
         store's policy forbids eviction (Eviction::Forbidden)",
        eviction.key,
        at(eviction.at_us),
        eviction.policy,
        eviction.used_memory_bytes,
        eviction.maxmemory_bytes
    )
}

/// One id a rule found missing: its writes' ops, and when the last of them was invoked
/// (an eviction before it does not explain the loss: that write recreated the data).
pub(crate) struct Loss {
    pub ops: Vec<usize>,
    pub id: String,
    pub invoke_us: u64,
}

/// Reports the losses of `subject` an eviction by `to_us` explains (one report per
/// eviction, with `also_op`, the read that missed them, and `missing`'s words for the
/// ids) and returns the others, for the rule's own class.
pub(crate) fn take_explained(
    idx: &Index<'_>,
    subject: &Subject,
    losses: Vec<Loss>,
    to_us: u64,
    also_op: Option<usize>,
    missing: impl Fn(&[String]) -> String,
    verdict: &mut Verdict,
) -> Vec<Loss> {
    let mut unexplained = Vec::new();
    let mut explained: Vec<(&KeyEviction, Vec<Loss>)> = Vec::new();
    for loss in losses {
        match first_eviction(idx, subject, loss.invoke_us, to_us) {
            None => unexplained.push(loss),
            Some(eviction) => match explained
                .iter_mut()
                .find(|(e, _)| std::ptr::eq(*e, eviction))
            {
                Some((_, group)) => group.push(loss),
                None => explained.push((eviction, vec![loss])),
            },
        }
    }
    for (eviction, group) in explained {
        let message_ids: Vec<String> = group.iter().map(|l| l.id.clone()).collect();
        let op_indexes = also_op
            .into_iter()
            .chain(group.iter().flat_map(|l| l.ops.iter().copied()))
            .collect();
        let explained = Explained {
            eviction,
            subject: subject.clone(),
            op_indexes,
            missing: missing(&message_ids),
            message_ids,
        };
        report(idx, explained, verdict);
    }
    unexplained
}
