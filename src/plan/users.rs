//! Users with several sessions (two tabs, a phone and a laptop): some seeds give sessions
//! of a tenant the user of another of its sessions. Sessions run concurrently, so one
//! user's memory writes and recalls race each other, where a read-modify-write of a
//! user's memory index loses a write.
//!
//! Drawn from its own stream; a seed that draws no sharing keeps one user per session.

use rand::Rng;

use super::prng::chance;
use super::workload::Workload;

/// Share of seeds whose users may have several sessions, in parts per million.
pub const SHARED_USERS_PPM: u32 = 350_000;
/// In such a seed, the chance that a session (not its tenant's first) belongs to the user
/// of an earlier session of its tenant, in parts per million.
pub const SHARED_SESSION_PPM: u32 = 600_000;

/// With [`SHARED_USERS_PPM`], hand sessions to the users of earlier sessions of their
/// tenant (in `workload.sessions` order), and name that user on every turn of theirs.
pub(crate) fn share_users(rng: &mut impl Rng, workload: &mut Workload) {
    if !chance(rng, SHARED_USERS_PPM) {
        return;
    }
    // Per session: its user's name, its own unless shared.
    let mut users: Vec<String> = workload
        .sessions
        .iter()
        .map(|s| s.session.clone())
        .collect();
    for i in 0..workload.sessions.len() {
        let tenant = &workload.sessions[i].tenant;
        let earlier: Vec<usize> = (0..i)
            .filter(|&j| &workload.sessions[j].tenant == tenant)
            .collect();
        if earlier.is_empty() || !chance(rng, SHARED_SESSION_PPM) {
            continue;
        }
        users[i] = users[earlier[rng.random_range(0..earlier.len())]].clone();
    }
    for turn in &mut workload.turns {
        let i = workload
            .sessions
            .iter()
            .position(|s| s == &turn.session)
            .expect("every turn's session is listed");
        if users[i] != turn.session.session {
            turn.user_name = Some(users[i].clone());
        }
    }
}
