//! A history corpus: the memories each user already holds when the run starts (the
//! incidents' "weeks of accumulated historical data", replayed into the store before the
//! first turn), and the turns that recall from it and revise it. With hundreds of
//! memories per user, a recall's `k` is far below what the user holds, so what an ANN
//! index's search width, its iterative scan, a filter after the index and an edit's
//! embedding decide is what a recall returns.
//!
//! Drawn from its own stream, only under a scenario with `corpus_memories_max > 0`; other
//! scenarios' plans do not change.

use rand::Rng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::prng::{between, chance, stream, Stream};
use super::scenario::ScenarioConfig;
use super::workload::{Recall, Revision, Turn};
use crate::domain::{Memory, UserKey};

/// Largest `k` a recall of a corpus plan asks for.
pub const CORPUS_RECALL_K_MAX: usize = 10;
/// The chance that a turn without a recall recalls one of its user's memories.
pub const CORPUS_RECALL_PPM: u32 = 500_000;
/// The chance that a turn without a revision updates one of its user's corpus memories.
pub const CORPUS_UPDATE_PPM: u32 = 150_000;

const SUBJECTS: [&str; 8] = [
    "the user",
    "their manager",
    "the user's sister",
    "the team lead",
    "the landlord",
    "the user's dentist",
    "a colleague",
    "the neighbour",
];
const VERBS: [&str; 12] = [
    "prefers",
    "booked",
    "cancelled",
    "recommended",
    "complained about",
    "paid for",
    "forgot",
    "is learning",
    "wrote about",
    "asked to move",
    "shared",
    "postponed",
];
const OBJECTS: [&str; 24] = [
    "oat milk",
    "the quarterly report",
    "a flight to Osaka",
    "the piano lessons",
    "kubernetes upgrades",
    "the invoice 4471",
    "vegan ramen",
    "the blue umbrella",
    "Portuguese classes",
    "the dentist appointment",
    "a standing desk",
    "the wedding playlist",
    "night trains",
    "the garden fence",
    "sourdough starters",
    "the car insurance",
    "a chess tournament",
    "the tax return",
    "noise-cancelling headphones",
    "the marathon training",
    "the hotel in Porto",
    "the release checklist",
    "a birthday cake",
    "the broken dishwasher",
];
const WHEN: [&str; 16] = [
    "last spring",
    "on Mondays",
    "after the move",
    "in 2021",
    "before the holidays",
    "every weekend",
    "during the offsite",
    "since January",
    "at the airport",
    "twice this year",
    "over lunch",
    "in the evening",
    "without telling anyone",
    "for the kids",
    "at work",
    "on the train",
];

/// One user's preloaded memories, remembered in order by one client before the first
/// turn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Preload {
    /// Whose memories these are.
    pub user: UserKey,
    /// The client that remembers them.
    pub client: u32,
    /// The memories, in the order they are remembered.
    pub memories: Vec<Memory>,
}

/// Under a corpus scenario: each turn user's preloaded memories (in user order), and
/// recalls and updates of them mixed into `turns`. Empty otherwise.
pub(crate) fn generate(seed: u64, scenario: &ScenarioConfig, turns: &mut [Turn]) -> Vec<Preload> {
    if scenario.corpus_memories_max == 0 {
        return Vec::new();
    }
    let mut rng = stream(seed, Stream::Corpus);
    let users: std::collections::BTreeSet<UserKey> = turns.iter().map(Turn::user).collect();
    let mut next_id = 0usize;
    let corpus: Vec<Preload> = users
        .into_iter()
        .enumerate()
        .map(|(nth, user)| {
            let count = between(
                &mut rng,
                u64::from(scenario.corpus_memories_min),
                u64::from(scenario.corpus_memories_max),
            );
            let memories = (0..count)
                .map(|_| {
                    next_id += 1;
                    Memory {
                        id: format!("c{}", next_id - 1),
                        text: text(&mut rng),
                    }
                })
                .collect();
            let client = nth as u32 % scenario.clients;
            Preload {
                user,
                client,
                memories,
            }
        })
        .collect();
    mix_into(&mut rng, &corpus, turns);
    corpus
}

/// Recalls of the users' corpus memories by their current text, and updates of them to
/// a new text that the user's next turn recalls.
fn mix_into(rng: &mut impl Rng, corpus: &[Preload], turns: &mut [Turn]) {
    // Per user: the current text of each corpus memory.
    let mut current: BTreeMap<UserKey, Vec<Memory>> = corpus
        .iter()
        .map(|p| (p.user.clone(), p.memories.clone()))
        .collect();
    let mut to_recall: BTreeMap<UserKey, String> = BTreeMap::new();
    for turn in turns.iter_mut() {
        let user = turn.user();
        let Some(memories) = current.get_mut(&user).filter(|m| !m.is_empty()) else {
            continue;
        };
        if turn.recall.is_none() {
            let updated = to_recall.remove(&user);
            if updated.is_some() || chance(rng, CORPUS_RECALL_PPM) {
                let query = updated
                    .unwrap_or_else(|| memories[rng.random_range(0..memories.len())].text.clone());
                let k = rng.random_range(1..=CORPUS_RECALL_K_MAX);
                turn.recall = Some(Recall { query, k });
            }
        }
        if turn.revise.is_none() && chance(rng, CORPUS_UPDATE_PPM) {
            let at = rng.random_range(0..memories.len());
            memories[at].text = format!("{} (revised)", text(rng));
            to_recall.insert(user, memories[at].text.clone());
            turn.revise = Some(Revision::Update {
                memory: memories[at].clone(),
            });
        }
    }
}

/// A corpus memory's text: who did what with what, and when.
fn text(rng: &mut impl Rng) -> String {
    format!(
        "{} {} {} {}",
        SUBJECTS[rng.random_range(0..SUBJECTS.len())],
        VERBS[rng.random_range(0..VERBS.len())],
        OBJECTS[rng.random_range(0..OBJECTS.len())],
        WHEN[rng.random_range(0..WHEN.len())]
    )
}
