//! Long-term memory operations mixed into the turns, from their own stream: some turns
//! remember a fact about the session's user, some recall by the exact text of a fact that
//! user was told to remember earlier (so a recall that misses it is checkable).

use super::prng::{chance, stream, Stream};
use super::workload::{Recall, Turn};
use crate::store::{Memory, UserKey};
use rand::Rng;
use std::collections::BTreeMap;

/// Share of turns that remember a fact, and that recall one, in parts per million.
pub const REMEMBER_PPM: u32 = 300_000;
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
    let mut remembered: BTreeMap<UserKey, Vec<String>> = BTreeMap::new();
    let mut next_id = 0usize;
    for turn in turns.iter_mut() {
        let user = turn.user();
        if let Some(texts) = remembered.get(&user) {
            if chance(&mut rng, RECALL_PPM) {
                let query = texts[rng.random_range(0..texts.len())].clone();
                turn.recall = Some(Recall {
                    query,
                    k: rng.random_range(1..=RECALL_K_MAX),
                });
            }
        }
        if chance(&mut rng, REMEMBER_PPM) {
            let text = format!(
                "{} {} {}",
                SUBJECTS[rng.random_range(0..SUBJECTS.len())],
                VERBS[rng.random_range(0..VERBS.len())],
                OBJECTS[rng.random_range(0..OBJECTS.len())]
            );
            turn.remember = Some(Memory {
                id: format!("k{next_id}"),
                text: text.clone(),
            });
            next_id += 1;
            remembered.entry(user).or_default().push(text);
        }
    }
}
