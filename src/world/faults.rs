//! Carrying out the plan's fault schedule on the world at its times (virtual in the
//! simulating engines, real in the real tier).

use crate::history::Kept;
use crate::plan::{Direction, ErrorReply, Fault, FaultKind};
use crate::world::shared::World;
use std::sync::Arc;

/// Start and end every fault of the plan at its time.
pub async fn run_schedule(world: Arc<World>) {
    let mut tasks = tokio::task::JoinSet::new();
    for fault in world.plan.faults.clone() {
        let world = world.clone();
        tasks.spawn(async move { run_fault(&world, fault).await });
    }
    while tasks.join_next().await.is_some() {}
}

async fn run_fault(world: &World, fault: Fault) {
    world.clock.sleep_until_ms(fault.at_ms).await;
    let note = |text: String| world.trace.record(world.clock.now_us(), "faults", text);
    let window = fault.duration_ms;
    match fault.kind {
        FaultKind::Partition { client, direction } => {
            partition(world, &fault, client, direction, &note).await
        }
        FaultKind::Clog { client, direction } => {
            let link = &world.links[client as usize];
            link.update_faults(|f| f.clog = Some(direction));
            note(format!("clog client-{client} {direction:?} for {window}ms"));
            world.clock.sleep_until_ms(fault.end_ms()).await;
            link.update_faults(|f| f.clog = None);
            note(format!(
                "clog client-{client} released: held bytes burst out"
            ));
        }
        FaultKind::Reset { client } => {
            let closed = world.links[client as usize].reset_all();
            note(format!(
                "reset client-{client}: {closed} connections closed"
            ));
        }
        FaultKind::SilentDrop { client } => {
            let dropped = world.links[client as usize].silence_all();
            note(format!(
                "silent drop client-{client}: {dropped} connections black-holed for good, no reset"
            ));
        }
        FaultKind::ClientCrash { client } => {
            client_crash(world, client, fault.end_ms(), &note).await
        }
        FaultKind::ClockSkew { client, offset_ms } => {
            let host = &world.clients[client as usize];
            host.set_clock_offset_ms(offset_ms);
            note(format!(
                "clock of client-{client} jumps {offset_ms:+}ms for {window}ms"
            ));
            world.clock.sleep_until_ms(fault.end_ms()).await;
            host.set_clock_offset_ms(0);
            note(format!("clock of client-{client} back in step"));
        }
        FaultKind::RedisRestart | FaultKind::PostgresRestart => {
            server_restart(world, fault.end_ms(), &note).await
        }
        FaultKind::RedisPause | FaultKind::PostgresPause => {
            world.server.set_paused(true).await;
            note(format!("{} paused for {window}ms", server_name(world)));
            world.clock.sleep_until_ms(fault.end_ms()).await;
            world.server.set_paused(false).await;
            note(format!("{} resumed", server_name(world)));
        }
        FaultKind::ErrorReply { error } => error_reply(world, error, &note).await,
        FaultKind::PostgresTooManyClients => too_many_clients(world, &fault, &note).await,
        FaultKind::PostgresTerminateBackend { client } => {
            match world.server.terminate_backends(client) {
                Some(backends) => note(format!(
                    "pg_terminate_backend of client-{client}'s {backends} backends: \
                     FATAL 57P01 before their next message"
                )),
                None => note("backend termination not reproduced here: skipped".into()),
            }
        }
        FaultKind::PostgresLockTables => lock_tables(world, &fault, &note).await,
    }
}

/// An administrator's migration holds ACCESS EXCLUSIVE locks on every table for the
/// fault's window.
async fn lock_tables(world: &World, fault: &Fault, note: &impl Fn(String)) {
    match world.server.lock_tables(fault.end_ms()) {
        None => note("table locks not reproduced here: skipped".into()),
        Some(tables) if tables.is_empty() => note("no table to lock yet: skipped".into()),
        Some(tables) => {
            note(format!(
                "postgres: an administrator's migration locks {} IN ACCESS EXCLUSIVE MODE \
                 for {}ms: statements on them wait (55P03 under a lock_timeout, 57014 \
                 under a statement_timeout)",
                tables.join(", "),
                fault.duration_ms
            ));
            world.clock.sleep_until_ms(fault.end_ms()).await;
            note("postgres: the migration's table locks released".into());
        }
    }
}

/// A partition of `client`'s link for the fault's window. Past the plan's retransmission
/// budget TCP gives up on what it holds (the world's connections find it themselves; a
/// transport that only holds bytes is told).
async fn partition(
    world: &World,
    fault: &Fault,
    client: u32,
    direction: Direction,
    note: &impl Fn(String),
) {
    let link = &world.links[client as usize];
    let tcp = world.plan.tcp;
    link.start_partition(direction, world.clock.now_us());
    note(format!(
        "partition client-{client} {direction:?} for {}ms: lost bytes are retransmitted, \
         given up after {}ms",
        fault.duration_ms, tcp.give_up_ms
    ));
    let give_up_ms = fault.at_ms + tcp.give_up_ms;
    if give_up_ms < fault.end_ms() {
        world.clock.sleep_until_ms(give_up_ms).await;
        link.partition_outlasted_budget();
    }
    world.clock.sleep_until_ms(fault.end_ms()).await;
    link.heal_partition(world.clock.now_us());
    note(format!(
        "partition client-{client} healed: held bytes land with their next retransmission"
    ));
}

/// Arm `error` for the next data command; withdraw it at the end of the busy phase if no
/// command met it, since the quiet period is fault-free (a final read would meet it).
async fn error_reply(world: &World, error: ErrorReply, note: &impl Fn(String)) {
    if !world.server.inject_error(error.text()) {
        note(format!(
            "error reply {} not reproduced here: skipped",
            error.text()
        ));
        return;
    }
    note(format!(
        "redis will answer the next data command with {}",
        error.text()
    ));
    world.clock.sleep_until_ms(world.plan.duration_ms).await;
    if world.server.withdraw_error() {
        note("an error reply no command met is withdrawn: the quiet period is fault-free".into());
    }
}

/// Every connection slot taken for the fault's window: a new connection is refused at
/// startup with FATAL 53300; open connections go on.
async fn too_many_clients(world: &World, fault: &Fault, note: &impl Fn(String)) {
    if !world.server.set_slots_full(true) {
        note("too many clients not reproduced here: skipped".into());
        return;
    }
    note(format!(
        "postgres connection slots all taken for {}ms: new connections are refused \
         (FATAL 53300 sorry, too many clients already)",
        fault.duration_ms
    ));
    world.clock.sleep_until_ms(fault.end_ms()).await;
    world.server.set_slots_full(false);
    note("postgres connection slots free again".into());
}

async fn client_crash(world: &World, client: u32, restart_ms: u64, note: &impl Fn(String)) {
    world.clients[client as usize].crash();
    let closed = world.links[client as usize].reset_all();
    note(format!(
        "client-{client} crashed ({closed} connections closed, pending work lost)"
    ));
    world.clock.sleep_until_ms(restart_ms).await;
    if world.clients[client as usize].end_crash() {
        world.start_client(client);
        note(format!("client-{client} restarted"));
    }
}

async fn server_restart(world: &World, restart_ms: u64, note: &impl Fn(String)) {
    // Only the crash that takes the process down is a restart; an overlapping window
    // keeps it down longer and nothing is applied in between.
    if let Some(restart) = world.server.crash().await {
        let closed: usize = world.links.iter().map(|link| link.reset_all()).sum();
        let durability = match restart.backend {
            crate::domain::Backend::Pgvector => {
                format!("its WAL kept {}", wal_kept_text(restart.kept))
            }
            _ => format!(
                "persistence {:?}, kept {}",
                restart.persistence,
                kept_text(restart.kept)
            ),
        };
        note(format!(
            "{} crashed ({closed} connections closed, {durability})",
            server_name(world),
        ));
        world.recorder.restart(restart);
    }
    world.clock.sleep_until_ms(restart_ms).await;
    if let Some(recovered) = world.server.restart().await {
        note(recovered);
    }
}

/// How the timeline names the server the schedule strikes.
fn server_name(world: &World) -> &'static str {
    match world.server.backend() {
        crate::domain::Backend::Pgvector => "postgres",
        _ => "redis",
    }
}

/// What a PostgreSQL crash's recovery replays: the commits its WAL had flushed.
fn wal_kept_text(kept: Kept) -> String {
    match kept {
        Kept::AppliedBefore { before_us, .. } => format!(
            "the commits before {before_us}us (its last flush): later asynchronous commits are lost"
        ),
        Kept::Nothing => "nothing".into(),
        Kept::Everything => "every commit".into(),
    }
}

fn kept_text(kept: Kept) -> String {
    match kept {
        Kept::Nothing => "nothing".into(),
        Kept::AppliedBefore {
            before_us,
            observed: true,
        } => format!("writes applied before {before_us}us (the last fsync)"),
        Kept::AppliedBefore {
            before_us,
            observed: false,
        } => format!("writes applied before {before_us}us (the documented bound)"),
        Kept::Everything => "every applied write".into(),
    }
}
