//! Requests of one conversation in flight together, as real traffic has them: a second
//! tab or a double submit (a turn that starts while the previous turn of its session
//! still thinks, sometimes sending the same text again), and a client-side retry of a
//! user message (same id) racing the first send, on the same client or another app
//! instance.
//!
//! Drawn from its own stream, for some seeds; the turns it moves earlier are put back in
//! start order and the messages renumbered, so a plan keeps its invariants (sorted turns,
//! rising seqs). Seeds that draw no overlap keep their plan unchanged.

use rand::Rng;

use super::prng::{between, chance};
use super::scenario::ScenarioConfig;
use super::workload::{Retry, Turn};

/// Share of seeds with overlapping turns and retries, in parts per million.
pub const OVERLAP_SEEDS_PPM: u32 = 400_000;
/// In such a seed, the chance that a turn (not its session's first) overlaps the previous
/// one, in parts per million.
pub const OVERLAP_TURN_PPM: u32 = 150_000;
/// The chance that an overlapping turn sends the same text as the previous one (a double
/// submit), in parts per million.
pub const DOUBLE_SUBMIT_PPM: u32 = 500_000;
/// In such a seed, the chance that a turn retries its user message, in parts per million.
pub const RETRY_TURN_PPM: u32 = 100_000;
/// Latest retry after the first send, in milliseconds.
pub const RETRY_AFTER_MS_MAX: u64 = 400;

/// With [`OVERLAP_SEEDS_PPM`], make some turns overlap their session's previous turn and
/// some retry their user message.
pub(crate) fn overlap(rng: &mut impl Rng, scenario: &ScenarioConfig, turns: &mut [Turn]) {
    if !chance(rng, OVERLAP_SEEDS_PPM) {
        return;
    }
    let mut moved = false;
    // Per turn: the position of the previous turn of its session, by plan order.
    let mut last_of: std::collections::BTreeMap<crate::domain::SessionKey, usize> =
        std::collections::BTreeMap::new();
    for i in 0..turns.len() {
        let previous = last_of.insert(turns[i].session.clone(), i);
        if let Some(p) = previous.filter(|_| chance(rng, OVERLAP_TURN_PPM)) {
            let (start_ms, end_ms) = (turns[p].start_ms, turns[p].think_end_ms());
            let start_ms = between(rng, start_ms, end_ms.min(turns[i].start_ms));
            moved |= start_ms != turns[i].start_ms;
            turns[i].start_ms = start_ms;
            turns[i].overlaps = true;
            if chance(rng, DOUBLE_SUBMIT_PPM) {
                turns[i].user.content = turns[p].user.content.clone();
            }
        }
        if chance(rng, RETRY_TURN_PPM) {
            turns[i].retry = Some(Retry {
                client: rng.random_range(0..scenario.clients),
                after_ms: between(rng, 1, RETRY_AFTER_MS_MAX),
            });
        }
    }
    if moved {
        resort(turns);
    }
}

/// Back in start order (ties keep plan order), reindexed, messages renumbered so seqs
/// rise in plan order again (ids follow their seq, `m{seq}`, deletes their message).
fn resort(turns: &mut [Turn]) {
    let mut seqs: Vec<u64> = turns
        .iter()
        .flat_map(|t| t.messages().map(|m| m.seq))
        .collect();
    seqs.sort_unstable();
    turns.sort_by_key(|t| (t.start_ms, t.index));
    let mut next = seqs.into_iter();
    let mut renamed: std::collections::BTreeMap<String, String> = Default::default();
    for (index, turn) in turns.iter_mut().enumerate() {
        turn.index = index;
        let Turn {
            system,
            user,
            assistant,
            ..
        } = turn;
        for message in system.iter_mut().chain([user, assistant]) {
            message.seq = next.next().expect("as many seqs as messages");
            let id = format!("m{}", message.seq);
            renamed.insert(std::mem::replace(&mut message.id, id.clone()), id);
        }
    }
    for id in turns.iter_mut().filter_map(|t| t.delete.as_mut()) {
        *id = renamed[id.as_str()].clone();
    }
}
