//! Long-term memory operations mixed into the turns, from their own stream: some turns
//! remember a fact about the session's user, some recall by the exact text of a fact that
//! user was told to remember earlier (so a recall that misses it is checkable).

use super::prng::{chance, stream, Stream};
use super::workload::{Recall, Turn};
use crate::domain::Memory;
use rand::Rng;
use std::collections::BTreeMap;

/// Share of turns that remember a fact, and that recall one, in parts per million.
pub const REMEMBER_PPM: u32 = 300_000;
/// Share of turns that recall, in parts per million.
pub const RECALL_PPM: u32 = 300_000;
/// Largest `k` a recall asks for.
pub const RECALL_K_MAX: usize = 5;

const SUBJECTS: [&str; 4] = ["the user", "their manager", "the user's cat", "the team"];
const VERBS: [&str; 4] = ["likes", "avoids", "is allergic to", "asked about"];
const OBJECTS: [&str; 8] = [
    "green tea",
    "peanuts",
    "Rust",
    "the Lisbon office",
    "jazz",
    "季節の野菜",
    "🚲 rides",
    "\"quoted\" things",
];

/// Add memory operations to `turns` (in place), drawn from the seed's memory stream.
pub(crate) fn mix_into(seed: u64, turns: &mut [Turn]) {
    let mut rng = stream(seed, Stream::Memory);
    // Per user (tenant and name, see `Turn::user`): the turns that remembered a fact, in
    // order. The texts are read back from those turns.
    let mut remembered: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    let mut next_id = 0usize;
    for i in 0..turns.len() {
        let user = user_of(&turns[i]);
        if let Some(earlier) = remembered.get(&user) {
            if chance(&mut rng, RECALL_PPM) {
                let j = earlier[rng.random_range(0..earlier.len())];
                let query = turns[j]
                    .remember
                    .as_ref()
                    .expect("a turn listed as remembering remembers")
                    .text
                    .clone();
                turns[i].recall = Some(Recall {
                    query,
                    k: rng.random_range(1..=RECALL_K_MAX),
                });
            }
        }
        if chance(&mut rng, REMEMBER_PPM) {
            let text = fact(&mut rng);
            turns[i].remember = Some(Memory {
                id: format!("k{next_id}"),
                text,
            });
            next_id += 1;
            remembered.entry(user).or_default().push(i);
        }
    }
}

/// The user of a turn as a (tenant, name) pair.
pub(crate) fn user_of(turn: &Turn) -> (String, String) {
    (turn.session.tenant.clone(), turn.user_name().to_string())
}

/// A fact about a user, to remember.
pub(crate) fn fact(rng: &mut impl Rng) -> String {
    format!(
        "{} {} {}",
        SUBJECTS[rng.random_range(0..SUBJECTS.len())],
        VERBS[rng.random_range(0..VERBS.len())],
        OBJECTS[rng.random_range(0..OBJECTS.len())]
    )
}
