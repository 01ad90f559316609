//! Pure plan edits for shrinking. Each takes a valid plan and returns a smaller valid one:
//! turns are re-indexed, message ids and sequence numbers keep their (increasing) order,
//! sessions without turns may go, clients are renumbered densely. Times only shrink, so
//! sorted turns and faults stay sorted and no turn starts before its predecessor thinks.

use crate::plan::Plan;
use std::collections::BTreeSet;

/// Store operations a run of the plan performs: the turns' and one final read per session.
pub fn operations_total(plan: &Plan) -> usize {
    plan.operations() + plan.sessions.len()
}

/// Keep only the turns whose positions are in `keep`.
pub fn keep_turns(plan: &Plan, keep: &BTreeSet<usize>) -> Plan {
    let mut plan = plan.clone();
    let turns = std::mem::take(&mut plan.turns);
    plan.turns = turns
        .into_iter()
        .enumerate()
        .filter(|(position, _)| keep.contains(position))
        .map(|(_, turn)| turn)
        .collect();
    reindex(&mut plan);
    plan
}

/// Keep only the sessions whose positions are in `keep`, and their turns.
pub fn keep_sessions(plan: &Plan, keep: &BTreeSet<usize>) -> Plan {
    let mut plan = plan.clone();
    let sessions = std::mem::take(&mut plan.sessions);
    plan.sessions = sessions
        .into_iter()
        .enumerate()
        .filter(|(position, _)| keep.contains(position))
        .map(|(_, session)| session)
        .collect();
    let kept: BTreeSet<_> = plan.sessions.iter().cloned().collect();
    plan.turns.retain(|turn| kept.contains(&turn.session));
    reindex(&mut plan);
    plan
}

/// Keep only the faults whose positions are in `keep`.
pub fn keep_faults(plan: &Plan, keep: &BTreeSet<usize>) -> Plan {
    let mut plan = plan.clone();
    let faults = std::mem::take(&mut plan.faults);
    plan.faults = faults
        .into_iter()
        .enumerate()
        .filter(|(position, _)| keep.contains(position))
        .map(|(_, fault)| fault)
        .collect();
    plan
}

/// Drop the system messages of the turns at `positions`.
pub fn drop_system_messages(plan: &Plan, positions: &BTreeSet<usize>) -> Plan {
    let mut plan = plan.clone();
    for &position in positions {
        if let Some(turn) = plan.turns.get_mut(position) {
            turn.system = None;
        }
    }
    plan
}

/// Drop the memory operations (recall, remember, revision) of the turns at `positions`.
pub fn drop_memory_operations(plan: &Plan, positions: &BTreeSet<usize>) -> Plan {
    let mut plan = plan.clone();
    for &position in positions {
        if let Some(turn) = plan.turns.get_mut(position) {
            turn.recall = None;
            turn.remember = None;
            turn.revise = None;
        }
    }
    plan
}

/// Drop the clear, the delete and the retry of the turns at `positions`.
pub fn drop_edits(plan: &Plan, positions: &BTreeSet<usize>) -> Plan {
    let mut plan = plan.clone();
    for &position in positions {
        if let Some(turn) = plan.turns.get_mut(position) {
            turn.clear = false;
            turn.delete = None;
            turn.retry = None;
        }
    }
    plan
}

/// Drop the key-scheme deploy and turn buggify points off: fewer moving parts.
pub fn calm(plan: &Plan, parts: &BTreeSet<usize>) -> Plan {
    let mut plan = plan.clone();
    if parts.contains(&0) {
        plan.deploy_at_ms = None;
    }
    if parts.contains(&1) {
        plan.scenario.buggify = false;
    }
    plan
}

/// Quiet the latency of the links at `parts`: part `2 * client` drops the link's tail,
/// part `2 * client + 1` its jitter. Each chunk's delay is drawn from the connection's
/// seeded stream, so while a link jitters, removing any command shifts every later delay on
/// it and a timing-dependent failure clings to all the traffic around it; on a quiet link
/// the other traffic stops mattering and can go.
pub fn calm_links(plan: &Plan, parts: &BTreeSet<usize>) -> Plan {
    let mut plan = plan.clone();
    for (client, link) in plan.links.iter_mut().enumerate() {
        if parts.contains(&(2 * client)) {
            link.tail = None;
        }
        if parts.contains(&(2 * client + 1)) {
            link.jitter_us = 0;
        }
    }
    plan
}

/// Thin the sessions at `positions` (in `plan.sessions`) to the bare turns: no system
/// message, no memory operations, empty contents; their timing and clients stay. A session
/// whose presence matters (it keeps a connection busy at the right moments) can often lose
/// everything but its turns, and then the turns themselves.
pub fn thin_sessions(plan: &Plan, positions: &BTreeSet<usize>) -> Plan {
    let thinned: BTreeSet<_> = positions
        .iter()
        .filter_map(|&position| plan.sessions.get(position))
        .collect();
    let mut plan = plan.clone();
    for turn in plan
        .turns
        .iter_mut()
        .filter(|turn| thinned.contains(&turn.session))
    {
        turn.system = None;
        turn.recall = None;
        turn.remember = None;
        turn.revise = None;
        turn.clear = false;
        turn.delete = None;
        turn.retry = None;
        turn.user.content.clear();
        turn.assistant.content.clear();
    }
    plan
}

/// Cut the contents of the messages at `positions` (in append order) to `fraction_num`
/// out of `fraction_den` of their bytes, at a character boundary.
pub fn shorten_contents(
    plan: &Plan,
    positions: &BTreeSet<usize>,
    fraction_num: usize,
    fraction_den: usize,
) -> Plan {
    assert!(fraction_den > 0 && fraction_num < fraction_den);
    let mut plan = plan.clone();
    let messages = plan.turns.iter_mut().flat_map(|turn| {
        turn.system
            .iter_mut()
            .chain([&mut turn.user, &mut turn.assistant])
    });
    for (position, message) in messages.enumerate() {
        if positions.contains(&position) {
            let mut cut = message.content.len() * fraction_num / fraction_den;
            while !message.content.is_char_boundary(cut) {
                cut -= 1;
            }
            message.content.truncate(cut);
        }
    }
    plan
}

/// Set the think time of the turns at `positions` to `fraction_num / fraction_den` of it.
pub fn shorten_thinks(
    plan: &Plan,
    positions: &BTreeSet<usize>,
    fraction_num: u64,
    fraction_den: u64,
) -> Plan {
    assert!(fraction_den > 0 && fraction_num < fraction_den);
    let mut plan = plan.clone();
    for &position in positions {
        if let Some(turn) = plan.turns.get_mut(position) {
            turn.think_ms = turn.think_ms * fraction_num / fraction_den;
        }
    }
    plan
}

/// Start the turns at `positions` earlier, by `fraction_num / fraction_den` of their
/// slack: the time since the latest moment they may start, which is the start of the turn
/// before them in the plan (turns stay sorted) or the think end of their session's
/// previous turn (turns of a session stay sequential), whichever is later. A race between
/// two turns is then decided by the links' base latencies rather than by a rare tail delay
/// drawn for the right chunk, so the failure stops depending on the traffic that shapes
/// those draws.
pub fn pull_turns(
    plan: &Plan,
    positions: &BTreeSet<usize>,
    fraction_num: u64,
    fraction_den: u64,
) -> Plan {
    assert!(fraction_den > 0 && fraction_num <= fraction_den);
    let mut plan = plan.clone();
    for &position in positions {
        let Some(turn) = plan.turns.get(position) else {
            continue;
        };
        let sorted_ms = position
            .checked_sub(1)
            .map_or(0, |previous| plan.turns[previous].start_ms);
        let sequential_ms = plan.turns[..position]
            .iter()
            .rev()
            .find(|earlier| earlier.session == turn.session)
            .map_or(0, |earlier| earlier.think_end_ms());
        let earliest_ms = sorted_ms.max(sequential_ms);
        let slack_ms = turn.start_ms.saturating_sub(earliest_ms);
        plan.turns[position].start_ms -= slack_ms * fraction_num / fraction_den;
    }
    plan
}

/// Move every turn of `client` to client `to` and drop the faults that hit `client`.
pub fn merge_client(plan: &Plan, client: u32, to: u32) -> Plan {
    let mut plan = plan.clone();
    for turn in plan.turns.iter_mut() {
        if turn.client == client {
            turn.client = to;
        }
        if let Some(retry) = turn.retry.as_mut().filter(|r| r.client == client) {
            retry.client = to;
        }
    }
    plan.faults
        .retain(|fault| fault.kind.client() != Some(client));
    remap_clients(&plan)
}

/// Renumber the clients that turns or faults use as `0..k`, dropping the others and
/// their links. A plan keeps at least one client.
pub fn remap_clients(plan: &Plan) -> Plan {
    let used: BTreeSet<u32> = plan
        .turns
        .iter()
        .flat_map(|turn| std::iter::once(turn.client).chain(turn.retry.map(|r| r.client)))
        .chain(plan.faults.iter().filter_map(|fault| fault.kind.client()))
        .collect();
    let used: Vec<u32> = if used.is_empty() {
        vec![0]
    } else {
        used.into_iter().collect()
    };
    let new_index = |client: u32| used.iter().position(|&c| c == client).expect("used") as u32;
    let mut plan = plan.clone();
    for turn in &mut plan.turns {
        turn.client = new_index(turn.client);
        if let Some(retry) = turn.retry.as_mut() {
            retry.client = new_index(retry.client);
        }
    }
    for fault in &mut plan.faults {
        if let Some(client) = fault.kind.client_mut() {
            *client = new_index(*client);
        }
    }
    plan.links = used.iter().map(|&c| plan.links[c as usize]).collect();
    plan.clients = used.len() as u32;
    plan
}

/// Turn indexes follow positions again.
fn reindex(plan: &mut Plan) {
    for (position, turn) in plan.turns.iter_mut().enumerate() {
        turn.index = position;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::ScenarioConfig;

    /// Every edit of a generated plan passes `Plan::validate`, on several seeds.
    #[test]
    fn every_edit_keeps_the_plan_valid() {
        for seed in 0..20 {
            let plan = Plan::generate(seed, &ScenarioConfig::standard());
            let odd = |n: usize| (0..n).filter(|i| i % 2 == 1).collect::<BTreeSet<_>>();
            let first = |n: usize| (0..n.min(1)).collect::<BTreeSet<_>>();
            let messages = plan.messages().count();
            let edits = [
                keep_turns(&plan, &odd(plan.turns.len())),
                keep_turns(&plan, &BTreeSet::new()),
                keep_sessions(&plan, &odd(plan.sessions.len())),
                keep_sessions(&plan, &first(plan.sessions.len())),
                keep_faults(&plan, &odd(plan.faults.len())),
                drop_system_messages(&plan, &(0..plan.turns.len()).collect()),
                shorten_contents(&plan, &(0..messages).collect(), 0, 1),
                shorten_contents(&plan, &odd(messages), 1, 3),
                shorten_thinks(&plan, &odd(plan.turns.len()), 1, 2),
                merge_client(&plan, plan.clients - 1, 0),
                remap_clients(&keep_turns(&plan, &first(plan.turns.len()))),
                calm_links(&plan, &(0..2 * plan.links.len()).collect()),
                thin_sessions(&plan, &odd(plan.sessions.len())),
                pull_turns(&plan, &(0..plan.turns.len()).collect(), 1, 1),
                pull_turns(&plan, &odd(plan.turns.len()), 1, 2),
                pull_turns(
                    &shorten_thinks(&plan, &odd(plan.turns.len()), 0, 1),
                    &(0..plan.turns.len()).collect(),
                    1,
                    1,
                ),
            ];
            for (i, edited) in edits.iter().enumerate() {
                edited
                    .validate()
                    .unwrap_or_else(|e| panic!("seed {seed}, edit {i}: {e}"));
            }
            let one_client = merge_client(&merge_client(&plan, 2, 0), 1, 0);
            assert_eq!(one_client.clients, 1, "seed {seed}");
            assert!(operations_total(&edits[1]) == plan.sessions.len());
            // Loosening edits keep every turn and add no operation.
            for edited in &edits[11..] {
                assert!(
                    operations_total(edited) <= operations_total(&plan),
                    "seed {seed}"
                );
                assert_eq!(edited.turns.len(), plan.turns.len(), "seed {seed}");
            }
            let pulled = &edits[13];
            assert!(
                pulled
                    .turns
                    .iter()
                    .zip(&plan.turns)
                    .all(|(p, t)| p.start_ms <= t.start_ms),
                "seed {seed}: a pull only moves turns earlier"
            );
            assert!(
                pulled
                    .turns
                    .iter()
                    .zip(&plan.turns)
                    .any(|(p, t)| p.start_ms < t.start_ms),
                "seed {seed}: a full pull moves some turn"
            );
        }
    }
}
