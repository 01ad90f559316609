//! Plan mutations for the guided search (`runner::explore`): plans are data, so a plan
//! that reached rare coverage is changed a little to reach more of it. Each operator
//! moves the plan toward the races rare bugs need (two turns of one user at the same
//! instant, an erase right after an append, a fault where writes are in flight); every
//! mutant is normalized (turns sorted and re-indexed, sequence numbers in plan order,
//! faults sorted) and must pass the plan validator, else the operator is dropped.
//! Randomness comes from the caller's seeded generator only.

use crate::domain::UserKey;
use crate::plan::{Plan, Turn};
use rand::Rng;

/// Mutations applied to one plan at most.
pub const MUTATIONS_MAX: usize = 4;
/// Tries of one mutation whose result the validator refuses, before it is given up.
pub const ATTEMPTS_MAX: usize = 8;
/// Largest shift of a turn's start, in milliseconds.
pub const SHIFT_MS_MAX: u64 = 2_000;
/// Latest an erase follows the turn it erases after, in milliseconds.
pub const ERASE_AFTER_MS_MAX: u64 = 5_000;
/// Largest gap a mutation opens between two events it brings together, in milliseconds.
pub const JITTER_MS_MAX: u64 = 5;

/// The operators, by name: what a mutant's origin lists.
pub const OPERATORS: &[&str] = &[
    "shift-turn",
    "align-user-turns",
    "double-submit",
    "erase-after-turn",
    "share-user",
    "move-fault",
    "add-fault",
    "reseed",
];

/// A mutant of `plan`: 1 to `mutations_max` operators applied (each valid; `n` with
/// chance 2^-n), and their
/// names in order; an empty list when no operator gave a valid plan.
pub(crate) fn mutate(
    plan: &Plan,
    rng: &mut impl Rng,
    mutations_max: usize,
) -> (Plan, Vec<&'static str>) {
    let mut mutant = plan.clone();
    let mut applied = Vec::new();
    // One mutation half the time, two a quarter, ...: small steps keep a parent's race.
    let mut count = 1;
    while count < mutations_max.clamp(1, MUTATIONS_MAX) && rng.random_bool(0.5) {
        count += 1;
    }
    for _ in 0..count {
        for _ in 0..ATTEMPTS_MAX {
            let operator = OPERATORS[rng.random_range(0..OPERATORS.len())];
            let mut next = mutant.clone();
            if apply(operator, &mut next, rng) && normalize(&mut next) {
                mutant = next;
                applied.push(operator);
                break;
            }
        }
    }
    (mutant, applied)
}

/// Apply one operator; false when the plan has nothing it applies to.
fn apply(operator: &str, plan: &mut Plan, rng: &mut impl Rng) -> bool {
    match operator {
        "shift-turn" => shift_turn(plan, rng),
        "align-user-turns" => align_user_turns(plan, rng),
        "double-submit" => double_submit(plan, rng),
        "erase-after-turn" => erase_after_turn(plan, rng),
        "share-user" => share_user(plan, rng),
        "move-fault" => move_fault(plan, rng, false),
        "add-fault" => move_fault(plan, rng, true),
        "reseed" => {
            plan.seed = rng.next_u64();
            true
        }
        _ => false,
    }
}

fn pick_turn(plan: &Plan, rng: &mut impl Rng) -> Option<usize> {
    (!plan.turns.is_empty()).then(|| rng.random_range(0..plan.turns.len()))
}

/// The latest start a turn may have: its thinking ends within the busy phase.
fn latest_start_ms(plan: &Plan, turn: &Turn) -> u64 {
    plan.duration_ms.saturating_sub(turn.think_ms)
}

/// Move one turn's start by up to [`SHIFT_MS_MAX`] either way.
fn shift_turn(plan: &mut Plan, rng: &mut impl Rng) -> bool {
    let Some(at) = pick_turn(plan, rng) else {
        return false;
    };
    let shift = rng.random_range(1..=SHIFT_MS_MAX);
    let latest = latest_start_ms(plan, &plan.turns[at]);
    let turn = &mut plan.turns[at];
    turn.start_ms = if rng.random_bool(0.5) {
        turn.start_ms.saturating_sub(shift)
    } else {
        (turn.start_ms + shift).min(latest)
    };
    true
}

/// Two turns of one user on different sessions end thinking together, so their appends
/// and memory writes race: a turn that writes a memory (nine times in ten, when there
/// is one), and a turn that remembers, of the same user or else of another session of
/// its tenant (whose session then takes that user), else any turn of such a session.
fn align_user_turns(plan: &mut Plan, rng: &mut impl Rng) -> bool {
    let writes = |t: &Turn| t.remember.is_some() || t.revise.is_some();
    let writers: Vec<usize> = (0..plan.turns.len())
        .filter(|&i| writes(&plan.turns[i]))
        .collect();
    let a = match writers.is_empty() || rng.random_bool(0.1) {
        true => match pick_turn(plan, rng) {
            Some(a) => a,
            None => return false,
        },
        false => writers[rng.random_range(0..writers.len())],
    };
    let (user, session) = (plan.turns[a].user(), plan.turns[a].session.clone());
    let other = |t: &Turn| t.session != session && t.session.tenant == session.tenant;
    let tiers: [fn(&Turn, &UserKey) -> bool; 4] = [
        |t, user| t.user() == *user && t.remember.is_some(),
        |t, _| t.remember.is_some(),
        |t, user| t.user() == *user,
        |_, _| true,
    ];
    let Some(pool) = tiers
        .iter()
        .map(|tier| {
            (0..plan.turns.len())
                .filter(|&b| other(&plan.turns[b]) && tier(&plan.turns[b], &user))
                .collect::<Vec<usize>>()
        })
        .find(|pool| !pool.is_empty())
    else {
        return false;
    };
    let b = pool[rng.random_range(0..pool.len())];
    let b_session = plan.turns[b].session.clone();
    for turn in plan.turns.iter_mut().filter(|t| t.session == b_session) {
        turn.user_name = Some(user.user.clone());
    }
    let target = plan.turns[b].think_end_ms() + rng.random_range(0..=JITTER_MS_MAX);
    let start = target.saturating_sub(plan.turns[a].think_ms);
    plan.turns[a].start_ms = start.min(latest_start_ms(plan, &plan.turns[a]));
    true
}

/// A turn that does not wait for its session's previous turn: it starts while that one
/// thinks (a second tab, a double submit).
fn double_submit(plan: &mut Plan, rng: &mut impl Rng) -> bool {
    let Some(at) = pick_turn(plan, rng) else {
        return false;
    };
    let session = plan.turns[at].session.clone();
    let Some(previous) = plan.turns[..at].iter().rposition(|t| t.session == session) else {
        return false;
    };
    let earlier = &plan.turns[previous];
    let start = earlier.start_ms + rng.random_range(0..=earlier.think_ms);
    let turn = &mut plan.turns[at];
    turn.overlaps = true;
    turn.start_ms = start.min(plan.duration_ms.saturating_sub(turn.think_ms));
    true
}

/// The next turn of a turn's session clears the session, or deletes the turn's user
/// message, right after the turn's appends.
fn erase_after_turn(plan: &mut Plan, rng: &mut impl Rng) -> bool {
    let Some(at) = pick_turn(plan, rng) else {
        return false;
    };
    let session = plan.turns[at].session.clone();
    let Some(next) = plan.turns[at + 1..]
        .iter()
        .position(|t| t.session == session)
    else {
        return false;
    };
    let next = at + 1 + next;
    let start = plan.turns[at].think_end_ms() + rng.random_range(0..=ERASE_AFTER_MS_MAX);
    let user_id = plan.turns[at].user.id.clone();
    let latest = latest_start_ms(plan, &plan.turns[next]);
    let turn = &mut plan.turns[next];
    turn.start_ms = start.min(latest);
    if rng.random_bool(0.5) {
        turn.clear = true;
    } else {
        turn.delete = Some(user_id);
    }
    true
}

/// Every turn of one session takes the user of another session of its tenant: one user
/// with two sessions, whose memory writes race.
fn share_user(plan: &mut Plan, rng: &mut impl Rng) -> bool {
    let Some(a) = pick_turn(plan, rng) else {
        return false;
    };
    let (tenant, session) = (&plan.turns[a].session.tenant, &plan.turns[a].session);
    let others: Vec<usize> = (0..plan.turns.len())
        .filter(|&b| &plan.turns[b].session.tenant == tenant && &plan.turns[b].session != session)
        .collect();
    if others.is_empty() {
        return false;
    }
    let b = others[rng.random_range(0..others.len())];
    let (from, name) = (
        plan.turns[b].session.clone(),
        plan.turns[a].user_name().to_string(),
    );
    for turn in plan.turns.iter_mut().filter(|t| t.session == from) {
        turn.user_name = Some(name.clone());
    }
    true
}

/// Move a fault (or a copy of it) to where a turn's writes happen: it starts a little
/// before the turn ends thinking.
fn move_fault(plan: &mut Plan, rng: &mut impl Rng, copy: bool) -> bool {
    if plan.faults.is_empty() || plan.turns.is_empty() {
        return false;
    }
    let at = rng.random_range(0..plan.faults.len());
    let turn = &plan.turns[rng.random_range(0..plan.turns.len())];
    let mut fault = plan.faults[at].clone();
    fault.duration_ms = rng.random_range(1..=fault.duration_ms.max(1));
    let start = turn
        .think_end_ms()
        .saturating_sub(rng.random_range(0..=fault.duration_ms));
    fault.at_ms = start.min(plan.duration_ms.saturating_sub(fault.duration_ms));
    if copy {
        plan.faults.push(fault);
    } else {
        plan.faults[at] = fault;
    }
    true
}

/// Put a mutated plan back in shape: turns sorted by start and re-indexed, the plan's
/// sequence numbers handed out again in turn order, faults sorted; true if it is valid.
fn normalize(plan: &mut Plan) -> bool {
    let mut seqs: Vec<u64> = plan.messages().map(|m| m.seq).collect();
    seqs.sort_unstable();
    plan.turns.sort_by_key(|turn| turn.start_ms);
    let mut next = seqs.into_iter();
    for (index, turn) in plan.turns.iter_mut().enumerate() {
        turn.index = index;
        let messages = turn
            .system
            .iter_mut()
            .chain([&mut turn.user, &mut turn.assistant]);
        for message in messages {
            message.seq = next.next().expect("as many seqs as messages");
        }
    }
    plan.faults.sort_by_key(|fault| fault.at_ms);
    plan.validate().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::ScenarioConfig;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn mutants_are_valid_seeded_and_differ_from_their_parent() {
        let plan = Plan::generate(3, &ScenarioConfig::standard());
        let mut changed = 0;
        for seed in 0..40 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let (mutant, applied) = mutate(&plan, &mut rng, MUTATIONS_MAX);
            assert!(mutant.validate().is_ok(), "seed {seed}: {applied:?}");
            assert!(!applied.is_empty() && applied.len() <= MUTATIONS_MAX);
            let mut again = ChaCha8Rng::seed_from_u64(seed);
            assert_eq!(
                mutate(&plan, &mut again, MUTATIONS_MAX),
                (mutant.clone(), applied)
            );
            changed += usize::from(mutant != plan);
        }
        assert!(
            changed >= 35,
            "only {changed} of 40 mutants changed the plan"
        );
    }

    #[test]
    fn every_operator_applies_to_a_standard_plan() {
        let plan = Plan::generate(4, &ScenarioConfig::standard());
        for operator in OPERATORS {
            let applies = (0..20).any(|seed| {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let mut next = plan.clone();
                apply(operator, &mut next, &mut rng) && normalize(&mut next) && next != plan
            });
            assert!(applies, "{operator} never gave a valid, different plan");
        }
    }
}
