//! Deletes and updates, as memory layers offer them: "new chat" clears a session, a user
//! deletes one message, a memory is updated to a new text or forgotten (mem0-style add,
//! update, delete). Each is where a late write resurrects what was deleted, or a stale
//! copy outlives its update.
//!
//! Drawn from its own stream, for some seeds, after the memory operations (a revision
//! edits a memory an earlier turn remembered). Seeds that draw no edits keep their plan.

use rand::Rng;
use std::collections::BTreeMap;

use super::memory::{fact, user_of, RECALL_K_MAX};
use super::prng::chance;
use super::workload::{Recall, Revision, Turn};
use crate::domain::{Memory, SessionKey};

/// Share of seeds with edits, in parts per million.
pub const EDIT_SEEDS_PPM: u32 = 400_000;
/// In such a seed, the chance that a turn (not its session's first) starts by clearing
/// its session, in parts per million.
pub const CLEAR_TURN_PPM: u32 = 40_000;
/// The chance that a turn ends by deleting an earlier message of its session.
pub const DELETE_TURN_PPM: u32 = 100_000;
/// The chance that a turn whose user remembered something updates or forgets a memory.
pub const REVISE_TURN_PPM: u32 = 200_000;
/// The share of revisions that update (the rest forget), in parts per million.
pub const UPDATE_PPM: u32 = 600_000;
/// The chance that the next turn of the user recalls an updated memory by its new text.
pub const RECALL_UPDATED_PPM: u32 = 700_000;

/// With [`EDIT_SEEDS_PPM`], add clears, deletes and memory revisions to `turns`.
pub(crate) fn edit(rng: &mut impl Rng, turns: &mut [Turn]) {
    if !chance(rng, EDIT_SEEDS_PPM) {
        return;
    }
    // Per session: ids of the messages of its earlier turns. Per user: its memory ids.
    let mut messages: BTreeMap<SessionKey, Vec<String>> = BTreeMap::new();
    let mut memories: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    // An updated memory's new text, waiting for the user's next turn to recall it.
    let mut to_recall: BTreeMap<(String, String), String> = BTreeMap::new();
    for turn in turns.iter_mut() {
        let user = user_of(turn);
        if let Some(query) = to_recall.remove(&user) {
            if turn.recall.is_none() && chance(rng, RECALL_UPDATED_PPM) {
                let k = rng.random_range(1..=RECALL_K_MAX);
                turn.recall = Some(Recall { query, k });
            }
        }
        let earlier = messages.entry(turn.session.clone()).or_default();
        if !earlier.is_empty() && chance(rng, CLEAR_TURN_PPM) {
            turn.clear = true;
        }
        if !earlier.is_empty() && chance(rng, DELETE_TURN_PPM) {
            turn.delete = Some(earlier[rng.random_range(0..earlier.len())].clone());
        }
        earlier.extend(turn.messages().map(|m| m.id.clone()));
        let known = memories.entry(user.clone()).or_default();
        if !known.is_empty() && chance(rng, REVISE_TURN_PPM) {
            let id = known[rng.random_range(0..known.len())].clone();
            turn.revise = Some(if chance(rng, UPDATE_PPM) {
                let text = format!("{} (updated)", fact(rng));
                to_recall.insert(user.clone(), text.clone());
                Revision::Update {
                    memory: Memory { id, text },
                }
            } else {
                Revision::Forget { id }
            });
        }
        known.extend(turn.remember.iter().map(|m| m.id.clone()));
    }
}
