//! Running one script: a fresh Lua 5.1 state per run with the globals Redis 7.0 gives a
//! script, `redis.call` executing model commands through the command table, Redis's
//! error texts, and an instruction hook: in a simulation it spends a budget standing in
//! for `lua-time-limit`; under `amnesia serve-model` (a real clock) there is no budget and
//! the hook stops the script when SCRIPT KILL asks (`state::script_watch`).
//!
//! Why a fresh state per run: Redis keeps one Lua state and protects it by making every
//! table reachable from the globals read-only (a patch to its Lua); stock Lua cannot do
//! that, so a script here could otherwise leave changes behind for the next one. A
//! fresh state (tens of microseconds) gives the same isolation. Global protection is
//! emulated with metatables: reading a missing global and creating a global (or a new
//! field of `redis`, `string`, `math`, ...) fail with Redis's messages; overwriting an
//! *existing* global or field succeeds here (Redis refuses it), but only for the rest of
//! that one run.
//!
//! The Lua side of the API is a small prelude (chunk `=redis_api`) over raw Rust
//! functions that answer `(ok, value)`, each wrapped in a C closure that raises the
//! error (`raise`), so errors carry the script's line as Redis's do; the error handler
//! skips the prelude's own frames (its metamethods raise the global-protection errors).

use crate::model::commands::table::{self, Command, Flags};
use crate::model::data::number::format_g;
use crate::model::protocol::args::is;
use crate::model::protocol::client::ClientState;
use crate::model::protocol::reply::{Protocol, Reply};
use crate::model::script::convert::{error_table, lua_to_reply, one_line, reply_to_lua};
use crate::model::script::{bit, cjson, raise};
use crate::model::state::ctx::Ctx;
use crate::model::state::script_watch::ScriptWatch;
use bytes::Bytes;
use mlua::{
    Function, HookTriggers, Lua, LuaOptions, MultiValue, StdLib, Table, Value, Variadic, VmState,
};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// The instruction budget of one script run, Lua VM instructions: the model's
/// `lua-time-limit` (Redis's 5000 ms). Real Redis executes some 10^9 instructions in
/// that time; the model stops far earlier so that a runaway script costs a test a
/// fraction of a second, not seconds. Scripts that memory stores run execute thousands.
pub(crate) const INSTRUCTIONS_MAX: u64 = 20_000_000;
/// The hook runs every this many instructions: a SCRIPT KILL takes effect within
/// microseconds, at the cost of one atomic load per thousand instructions.
const HOOK_INTERVAL: u32 = 1_000;
/// Memory a script's Lua state may allocate in a simulation, where the instruction
/// budget bounds its time and this its memory (a single `string.rep` allocates gigabytes
/// in one instruction). Under `amnesia serve-model` there is no bound, as in Redis: its
/// Lua allocations fail only when the host's do (`maxmemory` bounds the data, refusing a
/// script's first write when the node starts it out of memory; see `RunState::call`).
const SIMULATED_LUA_MEMORY_MAX: usize = 1 << 30;
/// A Lua state this large (bytes) is closed on a thread of its own in real time
/// (`close_aside`); smaller ones close in microseconds.
const CLOSE_ASIDE_BYTES_MIN: usize = 16 << 20;
/// States being closed aside at most.
const CLOSERS_MAX: usize = 4;
/// The chunk name of the prelude, whose frames error positions skip.
const PRELUDE_NAME: &str = "=redis_api";
/// Redis's message for a script stopped by SCRIPT KILL.
const KILLED: &[u8] = b"Script killed by user with SCRIPT KILL...";

/// The Lua side of the API: wraps the raw functions, installs `redis`, `cjson`, `bit`,
/// the `math.random` replacement, Redis's `pcall`, and the global protection.
const PRELUDE: &str = r#"
local raw, keys, argv = ...
local G = _G
local error, type, tostring, pairs, ipairs, setmetatable, setfenv, rawget =
    error, type, tostring, pairs, ipairs, setmetatable, setfenv, rawget
local base_pcall, base_xpcall, base_resume = pcall, xpcall, coroutine.resume
local killed = raw.killed

for _, name in ipairs({'print', 'dofile', 'loadfile', 'getfenv', 'setfenv', 'newproxy',
                       'module', 'require', 'package', 'debug', 'os', 'io'}) do
  G[name] = nil
end

local checked = raw.make_raising

local redis = {}
redis.call = checked(raw.call)
redis.pcall = raw.pcall
redis.sha1hex = checked(raw.sha1hex)
redis.error_reply = raw.error_reply
redis.status_reply = raw.status_reply
redis.log = checked(raw.log)
redis.setresp = checked(raw.setresp)
redis.set_repl = checked(raw.set_repl)
redis.acl_check_cmd = checked(raw.acl_check_cmd)
redis.replicate_commands = function() return true end
redis.breakpoint = function() return false end
redis.debug = function() end
redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING = 0, 1, 2, 3
redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_ALL =
    0, 1, 2, 2, 3
redis.REDIS_VERSION_NUM = 0x0007000f
redis.REDIS_VERSION = '7.0.15'
G.redis = redis

math.random = checked(raw.random)
math.randomseed = checked(raw.randomseed)

local cjson = {
  null = raw.null, encode = checked(raw.cjson_encode), decode = checked(raw.cjson_decode),
  _NAME = 'cjson', _VERSION = '2.1.0',
}
-- lua-cjson reuses its encode buffer or not: nothing a script can observe but the flag.
local keep_buffer = true
cjson.encode_keep_buffer = function(...)
  if select('#', ...) > 0 then keep_buffer = (...) ~= false and (...) ~= 'off' end
  return keep_buffer
end
G.cjson = cjson
local bit = {}
for name, f in pairs(raw.bit) do bit[name] = checked(f) end
G.bit = bit

-- A stopped script stays stopped: no pcall, xpcall or resume swallows the stop.
local function rethrow(ok, ...)
  if not ok and killed() then error((...), 0) end
  return ok, ...
end
-- Redis 7.0's pcall: an error table {err=...} is answered as its message.
local function pcall_result(ok, ...)
  if ok then return true, ... end
  if killed() then error((...), 0) end
  local e = (...)
  if type(e) == 'table' then
    local message = e.err
    if type(message) == 'string' or type(message) == 'number' then e = message end
  end
  return false, e
end
pcall = function(...) return pcall_result(base_pcall(...)) end
xpcall = function(f, handler) return rethrow(base_xpcall(f, handler)) end
coroutine.resume = function(...) return rethrow(base_resume(...)) end

G.KEYS = keys
G.ARGV = argv

local function readonly() error('Attempt to modify a readonly table', 2) end
for _, t in ipairs({math, string, table, coroutine}) do
  setmetatable(t, {__newindex = readonly})
end
-- Redis's own libraries are read-only, existing fields too: scripts see proxies.
for name, t in pairs({redis = redis, cjson = cjson, bit = bit}) do
  G[name] = setmetatable({}, {__index = t, __newindex = readonly, __metatable = false})
end
-- No script changes the metatable of a protected table (Redis: a read-only table).
local protected = {[G] = true, [math] = true, [string] = true, [table] = true,
                   [coroutine] = true}
for _, name in ipairs({'redis', 'cjson', 'bit'}) do protected[G[name]] = true end
local base_setmetatable = setmetatable
G.setmetatable = function(t, mt)
  -- Redis raises this from C: no position in the message.
  if protected[t] then error('Attempt to modify a readonly table', 0) end
  return base_setmetatable(t, mt)
end
-- Bytecode is never loaded (Redis's fix for crafted chunks): loadstring answers nil.
local base_loadstring, concat = loadstring, table.concat
local function loadstring(text, name)
  if type(text) == 'string' and text:byte(1) == 27 then
    return nil, 'bytecode loading is disabled'
  end
  return base_loadstring(text, name)
end
G.loadstring = loadstring
G.load = function(reader, name)
  local pieces, piece = {}, reader()
  while piece ~= nil and piece ~= '' do pieces[#pieces + 1] = piece; piece = reader() end
  return loadstring(concat(pieces), name)
end
local function missing(name)
  error("Script attempted to access nonexistent global variable '" .. tostring(name) .. "'", 3)
end
local G_meta = {__index = function(_, name) missing(name) end, __newindex = readonly}
-- What getmetatable(_G) shows: the metatable, read-only.
G_meta.__metatable = base_setmetatable({}, {__index = G_meta, __newindex = readonly})
base_setmetatable(G, G_meta)
-- The script's own environment: reads see the globals, every write is refused (Redis's
-- globals table is read-only, existing names too).
local env = base_setmetatable({}, {
  __index = function(_, name)
    local value = rawget(G, name)
    if value == nil then missing(name) end
    return value
  end,
  __newindex = readonly,
  __metatable = G_meta.__metatable,
})
G.loadstring = function(text, name)
  local f, message = loadstring(text, name)
  if f then setfenv(f, env) end
  return f, message
end
return function(f, handler)
  setfenv(f, env)
  return base_xpcall(f, handler)
end
"#;

/// What a script run did besides its reply.
#[derive(Debug, Default)]
pub(crate) struct Outcome {
    /// The commands to log for it, in order: its write commands (as their effects) and
    /// the SELECTs between them.
    pub effects: Vec<Vec<Bytes>>,
    /// It called a write command (Redis's `SCRIPT_WRITE_DIRTY`).
    pub wrote: bool,
    /// The instruction budget stopped it.
    pub stopped: bool,
}

/// A script to run: its SHA1 (for error texts) and the code to compile.
pub(crate) struct Script<'a> {
    pub sha: &'a str,
    pub code: &'a [u8],
    /// EVAL_RO / EVALSHA_RO, or a `no-writes` shebang: write commands are refused.
    pub read_only: bool,
}

/// Compile `code` as Redis does for EVAL and SCRIPT LOAD: the error reply if it does not.
pub(crate) fn compile_check(code: &[u8]) -> Result<(), Reply> {
    let lua = new_state().map_err(internal_error)?;
    compile(&lua, code).map(drop)
}

fn new_state() -> mlua::Result<Lua> {
    Lua::new_with(
        StdLib::TABLE | StdLib::STRING | StdLib::MATH,
        LuaOptions::default(),
    )
}

fn compile(lua: &Lua, code: &[u8]) -> Result<Function, Reply> {
    match lua.load(code).set_name("@user_script").into_function() {
        Ok(function) => Ok(function),
        Err(mlua::Error::SyntaxError { message, .. }) => Err(Reply::Error(one_line(
            format!("ERR Error compiling script (new function): {message}").as_bytes(),
        ))),
        Err(other) => Err(internal_error(other)),
    }
}

fn internal_error(error: mlua::Error) -> Reply {
    Reply::Error(one_line(
        format!("ERR Error running script: {error}").as_bytes(),
    ))
}

/// Run `script` with `keys` and `argv` as the client of `ctx`: its reply, and what it did.
pub(crate) fn run(
    ctx: &mut Ctx,
    script: &Script,
    keys: &[Bytes],
    argv: &[Bytes],
) -> (Reply, Outcome) {
    let watch = ctx.node.script_watch.clone();
    let limits = Limits {
        // No budget on a real clock: SCRIPT KILL (through the watch) stops a script there.
        instructions_max: (!ctx.node.real_time).then_some(INSTRUCTIONS_MAX),
        memory_bytes_max: (!ctx.node.real_time).then_some(SIMULATED_LUA_MEMORY_MAX),
        watch: watch.clone(),
        killed: Arc::new(AtomicBool::new(false)),
        budget_spent: Arc::new(AtomicBool::new(false)),
        // A simulation spawns no threads (madsim forbids them; nothing may race there).
        close_aside: ctx.node.real_time,
    };
    let running = watch.begin(ctx.now_ms, ctx.node.busy_reply_threshold_ms());
    let mut client = ClientState::new(0, true);
    client.db = ctx.client.db;
    let state = RefCell::new(RunState {
        ctx,
        client,
        resp3: false,
        read_only: script.read_only,
        propagate_aof: true,
        outcome: Outcome::default(),
    });
    let reply = match run_in_lua(&state, script, keys, argv, &limits) {
        Ok(reply) => reply,
        Err(reply) => reply,
    };
    drop(running);
    let mut outcome = state.into_inner().outcome;
    outcome.stopped = limits.budget_spent.load(Ordering::Relaxed);
    (reply, outcome)
}

/// What bounds one run, and the flags its hook raises.
struct Limits {
    /// The instruction budget (a simulation's `lua-time-limit`); none on a real clock.
    instructions_max: Option<u64>,
    /// The Lua state's allocation bound; none on a real clock.
    memory_bytes_max: Option<usize>,
    /// Where SCRIPT KILL asks the run to stop (another connection, another thread).
    watch: Arc<ScriptWatch>,
    /// The run must stop (SCRIPT KILL or the budget): no `pcall` swallows the stop.
    killed: Arc<AtomicBool>,
    /// The budget stopped it (not SCRIPT KILL): Redis would still be running it.
    budget_spent: Arc<AtomicBool>,
    /// Close a large state on a thread of its own (real time only, `close_aside`).
    close_aside: bool,
}

fn run_in_lua(
    state: &RefCell<RunState>,
    script: &Script,
    keys: &[Bytes],
    argv: &[Bytes],
    limits: &Limits,
) -> Result<Reply, Reply> {
    let killed = &limits.killed;
    let lua = new_state().map_err(internal_error)?;
    let function = compile(&lua, script.code)?;
    let result = lua.scope(|scope| {
        let raw = lua.create_table()?;
        install_node_functions(scope, &raw, state)?;
        install_plain_functions(&lua, &raw, killed)?;
        let keys = string_array(&lua, keys)?;
        let argv = string_array(&lua, argv)?;
        let prelude = lua.load(PRELUDE).set_name(PRELUDE_NAME).into_function()?;
        let xpcall: Function = prelude.call((raw, keys, argv))?;
        let handler = error_handler(&lua, killed.clone())?;
        lua.globals()
            .raw_set("__redis__err__handler", handler.clone())?;
        if let Some(bytes) = limits.memory_bytes_max {
            lua.set_memory_limit(bytes)?;
        }
        install_instruction_hook(&lua, limits)?;
        let results: MultiValue = xpcall.call((function, handler))?;
        lua.remove_global_hook();
        let mut results = results.into_iter();
        let ok = matches!(results.next(), Some(Value::Boolean(true)));
        let value = results.next().unwrap_or(Value::Nil);
        let resp3 = state.borrow().resp3;
        Ok(if ok {
            lua_to_reply(&value, resp3)
        } else {
            script_error(script.sha, &value)
        })
    });
    if limits.close_aside && lua.used_memory() >= CLOSE_ASIDE_BYTES_MIN {
        close_aside(lua);
    }
    result.map_err(internal_error)
}

/// Close a large Lua state on a thread of its own, so the reply and the node do not wait:
/// mlua's drop runs a full collection and then frees every object, about a third of the
/// run of a script that left three million strings behind (measured with perf: BENCHMARKS.md,
/// issue 47), which Redis never pays (its one state collects them incrementally later).
/// At most `CLOSERS_MAX` at once; past that the caller closes it.
fn close_aside(lua: Lua) {
    static CLOSERS: AtomicUsize = AtomicUsize::new(0);
    if CLOSERS.fetch_add(1, Ordering::SeqCst) >= CLOSERS_MAX {
        CLOSERS.fetch_sub(1, Ordering::SeqCst);
        return; // dropped here
    }
    let spawned = std::thread::Builder::new()
        .name("lua-close".into())
        .spawn(move || {
            drop(lua);
            CLOSERS.fetch_sub(1, Ordering::SeqCst);
        });
    if spawned.is_err() {
        CLOSERS.fetch_sub(1, Ordering::SeqCst); // the closure, and the state, dropped here
    }
}

/// The functions that reach the node through the run's state (`redis.call` and friends):
/// scoped, because they borrow `state`, which lives only as long as the run.
fn install_node_functions<'scope, 'env: 'scope>(
    scope: &'scope mlua::Scope<'scope, 'env>,
    raw: &Table,
    state: &'env RefCell<RunState>,
) -> mlua::Result<()> {
    raw.raw_set(
        "call",
        scope.create_function(|lua, args: MultiValue| state.borrow_mut().call(lua, args))?,
    )?;
    raw.raw_set(
        "pcall",
        scope.create_function(|lua, args: MultiValue| {
            state.borrow_mut().call(lua, args).map(|(_, value)| value)
        })?,
    )?;
    raw.raw_set(
        "acl_check_cmd",
        scope.create_function(|lua, args: MultiValue| state.borrow().acl_check_cmd(lua, args))?,
    )?;
    raw.raw_set(
        "setresp",
        scope
            .create_function(|lua, args: Variadic<Value>| state.borrow_mut().setresp(lua, &args))?,
    )?;
    raw.raw_set(
        "set_repl",
        scope.create_function(|lua, args: Variadic<Value>| {
            state.borrow_mut().set_repl(lua, &args)
        })?,
    )?;
    raw.raw_set(
        "random",
        scope
            .create_function(|lua, args: Variadic<Value>| state.borrow_mut().random(lua, &args))?,
    )?;
    raw.raw_set(
        "randomseed",
        scope.create_function(|lua, args: Variadic<Value>| {
            state.borrow_mut().randomseed(lua, &args)
        })?,
    )?;
    Ok(())
}

/// Stops a script: every `HOOK_INTERVAL` instructions the hook counts, and raises the
/// kill error once the run was stopped, SCRIPT KILL asks (the watch) or the budget (if
/// any) is spent.
fn install_instruction_hook(lua: &Lua, limits: &Limits) -> mlua::Result<()> {
    let ticks = AtomicU64::new(0);
    let hook_killed = limits.killed.clone();
    let budget_spent = limits.budget_spent.clone();
    let watch = limits.watch.clone();
    let instructions_max = limits.instructions_max;
    lua.set_global_hook(
        HookTriggers::new().every_nth_instruction(HOOK_INTERVAL),
        move |_, _| {
            let ticks = ticks.fetch_add(1, Ordering::Relaxed) + 1;
            let spent = instructions_max.is_some_and(|max| ticks * u64::from(HOOK_INTERVAL) >= max);
            if spent {
                budget_spent.store(true, Ordering::Relaxed);
            }
            if spent || hook_killed.load(Ordering::Relaxed) || watch.stop_requested() {
                hook_killed.store(true, Ordering::Relaxed);
                return Err(mlua::Error::runtime(String::from_utf8_lossy(KILLED)));
            }
            Ok(VmState::Continue)
        },
    )
}

/// The error reply of a script that failed (Redis's `luaCallFunction`).
fn script_error(sha: &str, error: &Value) -> Reply {
    let Value::Table(table) = error else {
        let message = match error {
            Value::String(s) => String::from_utf8_lossy(&s.as_bytes()).into_owned(),
            _ => "execution failure".into(),
        };
        let message: String = message.chars().take(100).collect();
        return Reply::Error(one_line(
            format!("ERR Error running script {sha}, {message}\n").as_bytes(),
        ));
    };
    let text_of = |field: &str| match table.raw_get::<Value>(field) {
        Ok(Value::String(s)) => Some(String::from_utf8_lossy(&s.as_bytes()).into_owned()),
        Ok(Value::Integer(i)) => Some(i.to_string()),
        Ok(Value::Number(n)) => Some(format_g(n, 14)),
        _ => None,
    };
    let mut text = text_of("err").unwrap_or_default();
    if let (Some(source), Some(line)) = (text_of("source"), text_of("line")) {
        text.push_str(&format!(" script: {sha}, on {source}:{line}."));
    }
    Reply::Error(one_line(text.as_bytes()))
}

/// Redis's `__redis__err__handler`: the error as a table `{err=...}` with the source and
/// line of the script code that raised it.
fn error_handler(lua: &Lua, killed: Arc<AtomicBool>) -> mlua::Result<Function> {
    lua.create_function(move |lua, error: Value| {
        let table = if killed.load(Ordering::Relaxed) {
            error_table(lua, KILLED)?
        } else if let Value::Table(table) = error {
            table
        } else {
            let tostring: Function = lua.globals().raw_get("tostring")?;
            let text: mlua::String = tostring.call(error)?;
            let mut message = b"ERR ".to_vec();
            message.extend_from_slice(&text.as_bytes());
            let table = lua.create_table()?;
            table.raw_set("err", lua.create_string(message)?)?;
            table
        };
        if let Some((source, line)) = error_position(lua) {
            table.raw_set("source", source)?;
            table.raw_set("line", line)?;
        }
        Ok(table)
    })
}

/// The frame an error is reported at: the function that raised it, or its caller if that
/// was a C function (Redis's handler), past the prelude's own frames.
fn error_position(lua: &Lua) -> Option<(String, i64)> {
    let frame = |level| {
        lua.inspect_stack(level, |debug| {
            let source = debug.source();
            let name = source.source.map(|s| s.into_owned()).unwrap_or_default();
            (
                source.what,
                name,
                debug.current_line().map_or(-1, |line| line as i64),
            )
        })
    };
    let mut level = 1;
    let mut info = frame(level)?;
    if info.0 == "C" {
        level += 1;
        info = frame(level)?;
    }
    while info.1 == PRELUDE_NAME {
        level += 1;
        info = frame(level)?;
    }
    Some((info.1, info.2))
}

fn string_array(lua: &Lua, items: &[Bytes]) -> mlua::Result<Table> {
    let table = lua.create_table_with_capacity(items.len(), 0)?;
    for (index, item) in items.iter().enumerate() {
        table.raw_set(index + 1, lua.create_string(item)?)?;
    }
    Ok(table)
}

/// A raised error (`raise` raises the value): `(false, {err="ERR message"})`.
fn fail(lua: &Lua, message: &[u8]) -> mlua::Result<(bool, Value)> {
    let table = error_table(lua, message)?;
    table.raw_set("ignore_error_stats_update", true)?;
    Ok((false, Value::Table(table)))
}

/// A raised error with Lua's position prefix (`luaL_error`): `(false, "message")`.
fn fail_text(lua: &Lua, message: &str) -> mlua::Result<(bool, Value)> {
    Ok((false, Value::String(lua.create_string(message)?)))
}

/// The functions that need no access to the node.
fn install_plain_functions(lua: &Lua, raw: &Table, killed: &Arc<AtomicBool>) -> mlua::Result<()> {
    raw.raw_set("make_raising", raise::make_raising_function(lua)?)?;
    let killed = killed.clone();
    raw.raw_set(
        "killed",
        lua.create_function(move |_, ()| Ok(killed.load(Ordering::Relaxed)))?,
    )?;
    raw.raw_set("sha1hex", lua.create_function(sha1hex)?)?;
    raw.raw_set("error_reply", lua.create_function(error_reply)?)?;
    raw.raw_set("status_reply", lua.create_function(status_reply)?)?;
    raw.raw_set("log", lua.create_function(redis_log)?)?;
    raw.raw_set("cjson_encode", lua.create_function(cjson_encode)?)?;
    raw.raw_set("cjson_decode", lua.create_function(cjson_decode)?)?;
    raw.raw_set("null", cjson::null())?;
    raw.raw_set("bit", bit::register(lua)?)?;
    Ok(())
}

/// `redis.sha1hex`: named rather than a closure so `install_plain_functions` stays a list.
fn sha1hex(lua: &Lua, args: Variadic<Value>) -> mlua::Result<(bool, Value)> {
    if args.len() != 1 {
        return fail(lua, b"wrong number of arguments");
    }
    let bytes = match &args[0] {
        Value::String(s) => s.as_bytes().to_vec(),
        Value::Integer(_) | Value::Number(_) => lua
            .coerce_string(args[0].clone())?
            .map(|s| s.as_bytes().to_vec())
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let hex = sha1_smol::Sha1::from(&bytes).digest().to_string();
    Ok((true, Value::String(lua.create_string(hex)?)))
}

/// `redis.error_reply`: named rather than a closure so `install_plain_functions` stays a list.
fn error_reply(lua: &Lua, args: Variadic<Value>) -> mlua::Result<Table> {
    match &args[..] {
        [Value::String(s)] => {
            let s = s.as_bytes();
            let mut text = Vec::with_capacity(s.len() + 1);
            if !s.starts_with(b"-") {
                text.push(b'-');
            }
            text.extend_from_slice(&s);
            error_table(lua, &text)
        }
        _ => error_table(lua, b"wrong number or type of arguments"),
    }
}

/// `redis.status_reply`: named rather than a closure so `install_plain_functions` stays a list.
fn status_reply(lua: &Lua, args: Variadic<Value>) -> mlua::Result<Table> {
    match &args[..] {
        [Value::String(s)] => {
            let table = lua.create_table()?;
            table.raw_set("ok", s.clone())?;
            Ok(table)
        }
        _ => error_table(lua, b"wrong number or type of arguments"),
    }
}

/// `redis.log`: checks its arguments as Redis does, then drops the line (the model keeps no
/// log).
fn redis_log(lua: &Lua, args: Variadic<Value>) -> mlua::Result<(bool, Value)> {
    if args.len() < 2 {
        return fail(lua, b"redis.log() requires two arguments or more.");
    }
    let Some(level) = lua_number(lua, &args[0]) else {
        return fail(lua, b"First argument must be a number (log level).");
    };
    if !(0.0..4.0).contains(&level.trunc()) {
        return fail(lua, b"Invalid debug level.");
    }
    Ok((true, Value::Nil)) // the model keeps no log
}

/// `cjson.encode`: named rather than a closure so `install_plain_functions` stays a list.
fn cjson_encode(lua: &Lua, args: Variadic<Value>) -> mlua::Result<(bool, Value)> {
    if args.len() != 1 {
        return fail_text(lua, "bad argument #1 to 'encode' (expected 1 argument)");
    }
    match cjson::encode(&args[0]) {
        Ok(json) => Ok((true, Value::String(lua.create_string(json)?))),
        Err(message) => fail_text(lua, &message),
    }
}

/// `cjson.decode`: named rather than a closure so `install_plain_functions` stays a list.
fn cjson_decode(lua: &Lua, args: Variadic<Value>) -> mlua::Result<(bool, Value)> {
    if args.len() != 1 {
        return fail_text(lua, "bad argument #1 to 'decode' (expected 1 argument)");
    }
    let text = match &args[0] {
        Value::String(s) => s.as_bytes().to_vec(),
        value @ (Value::Integer(_) | Value::Number(_)) => lua
            .coerce_string(value.clone())?
            .map(|s| s.as_bytes().to_vec())
            .unwrap_or_default(),
        other => {
            let message = format!(
                "bad argument #1 to 'decode' (string expected, got {})",
                other.type_name()
            );
            return fail_text(lua, &message);
        }
    };
    match cjson::decode(lua, &text) {
        Ok(value) => Ok((true, value)),
        Err(message) => fail_text(lua, &message),
    }
}

/// `lua_tonumber`'s view of a value: numbers, and strings that read as one.
fn lua_number(lua: &Lua, value: &Value) -> Option<f64> {
    match value {
        Value::Integer(i) => Some(*i as f64),
        Value::Number(n) => Some(*n),
        Value::String(_) => lua.coerce_number(value.clone()).ok().flatten(),
        _ => None,
    }
}

/// `luaL_checkint` for `name`'s argument `index` (1-based).
fn check_int(lua: &Lua, args: &[Value], index: usize, name: &str) -> Result<i32, String> {
    match args.get(index - 1) {
        Some(value) => match lua_number(lua, value) {
            Some(number) => Ok(number as i32),
            None => Err(format!(
                "bad argument #{index} to '{name}' (number expected, got {})",
                value.type_name()
            )),
        },
        None => Err(format!(
            "bad argument #{index} to '{name}' (number expected, got no value)"
        )),
    }
}

/// The state one run's `redis.*` functions share.
struct RunState<'c, 'n> {
    ctx: &'c mut Ctx<'n>,
    /// The script's own client (Redis's Lua client): the caller's database, the script's
    /// protocol, never in MULTI.
    client: ClientState,
    resp3: bool,
    read_only: bool,
    /// `redis.set_repl` without `REPL_AOF` keeps the following writes out of the log.
    propagate_aof: bool,
    outcome: Outcome,
}

/// Redis's `CMD_NOSCRIPT` commands of the model's table.
const NOSCRIPT: &[&str] = &[
    "hello",
    "auth",
    "quit",
    "reset",
    "multi",
    "exec",
    "discard",
    "watch",
    "unwatch",
    "eval",
    "evalsha",
    "eval_ro",
    "evalsha_ro",
    "debug",
    // The blocking commands Redis 7.0 refuses in scripts (BLMPOP and BZMPOP run there,
    // never blocking).
    "blpop",
    "brpop",
    "blmove",
    "brpoplpush",
    "bzpopmin",
    "bzpopmax",
];

/// Redis 7.0's subcommands of the model's containers: name, arity, whether
/// `CMD_NOSCRIPT` (the model may implement fewer; the others answer its error).
const CLIENT_SUBCOMMANDS: &[(&str, i32, bool)] = &[
    ("caching", 3, true),
    ("getname", 2, true),
    ("getredir", 2, true),
    ("help", 2, false),
    ("id", 2, true),
    ("info", 2, true),
    ("kill", -3, true),
    ("list", -2, true),
    ("no-evict", 3, true),
    ("pause", -3, true),
    ("reply", 3, true),
    ("setname", 3, true),
    ("tracking", -3, true),
    ("trackinginfo", 2, true),
    ("unblock", -3, true),
    ("unpause", 2, true),
];
const CONFIG_SUBCOMMANDS: &[(&str, i32, bool)] = &[
    ("get", -3, true),
    ("help", 2, false),
    ("resetstat", 2, true),
    ("rewrite", 2, true),
    ("set", -4, true),
];
const OBJECT_SUBCOMMANDS: &[(&str, i32, bool)] = &[
    ("encoding", 3, false),
    ("freq", 3, false),
    ("help", 2, false),
    ("idletime", 3, false),
    ("refcount", 3, false),
];
const SCRIPT_SUBCOMMANDS: &[(&str, i32, bool)] = &[
    ("debug", 3, true),
    ("exists", -3, true),
    ("flush", -2, true),
    ("help", 2, false),
    ("kill", 2, true),
    ("load", 3, true),
];

/// What Redis's `scriptCall` refuses a command with, before running it.
enum Refusal {
    Unknown,
    Arity,
    NoScript,
}

fn arity_ok(arity: i32, args: usize) -> bool {
    let args = args as i32;
    if arity >= 0 {
        args == arity
    } else {
        args >= -arity
    }
}

/// Redis 7.2's CLIENT subcommands, known when `ModelConfig::client_commands_7_2` is on:
/// both `CMD_NOSCRIPT`.
const CLIENT_SUBCOMMANDS_7_2: &[(&str, i32, bool)] = &[("no-touch", 3, true), ("setinfo", 4, true)];

/// Look a command up as Redis does from a script, subcommands included (Redis 7.2's
/// too when `redis_7_2`).
fn script_lookup(args: &[Bytes], redis_7_2: bool) -> Result<&'static Command, Refusal> {
    let command = table::lookup(&args[0]).ok_or(Refusal::Unknown)?;
    let subcommands = match command.name {
        "client"
            if redis_7_2
                && CLIENT_SUBCOMMANDS_7_2
                    .iter()
                    .any(|(name, _, _)| args.get(1).is_some_and(|sub| is(sub, name))) =>
        {
            CLIENT_SUBCOMMANDS_7_2
        }
        "client" => CLIENT_SUBCOMMANDS,
        "script" => SCRIPT_SUBCOMMANDS,
        "config" => CONFIG_SUBCOMMANDS,
        "object" => OBJECT_SUBCOMMANDS,
        _ => {
            if !command.arity_ok(args.len()) {
                return Err(Refusal::Arity);
            }
            if NOSCRIPT.contains(&command.name) {
                return Err(Refusal::NoScript);
            }
            return Ok(command);
        }
    };
    if args.len() < 2 {
        return Err(Refusal::Arity);
    }
    let &(_, arity, noscript) = subcommands
        .iter()
        .find(|(name, _, _)| is(&args[1], name))
        .ok_or(Refusal::Unknown)?;
    if !arity_ok(arity, args.len()) {
        return Err(Refusal::Arity);
    }
    if noscript {
        return Err(Refusal::NoScript);
    }
    Ok(command)
}

/// A script's command arguments (`luaArgsToRedisArgv`): strings as they are, numbers as
/// `%.17g`; the error message for anything else.
fn command_args(args: MultiValue) -> Result<Vec<Bytes>, &'static [u8]> {
    if args.is_empty() {
        return Err(b"Please specify at least one argument for this redis lib call");
    }
    args.into_iter()
        .map(|arg| match arg {
            Value::String(s) => Ok(Bytes::copy_from_slice(&s.as_bytes())),
            Value::Integer(i) => Ok(Bytes::from(format_g(i as f64, 17))),
            Value::Number(n) => Ok(Bytes::from(format_g(n, 17))),
            _ => Err(&b"Lua redis lib command arguments must be strings or integers"[..]),
        })
        .collect()
}

impl RunState<'_, '_> {
    /// `redis.call` / `redis.pcall`: `(true, reply)` or `(false, error table)`.
    fn call(&mut self, lua: &Lua, args: MultiValue) -> mlua::Result<(bool, Value)> {
        let args = match command_args(args) {
            Ok(args) => args,
            Err(message) => return fail(lua, message),
        };
        let command = match script_lookup(&args, self.ctx.node.config.client_commands_7_2) {
            Ok(command) => command,
            Err(Refusal::Unknown) => return fail(lua, b"Unknown Redis command called from script"),
            Err(Refusal::Arity) => {
                return fail(
                    lua,
                    b"Wrong number of args calling Redis command from script",
                )
            }
            Err(Refusal::NoScript) => {
                return fail(lua, b"This Redis command is not allowed from script")
            }
        };
        // A subcommand Redis has and the model does not (CLIENT HELP, CLIENT LIST) answers
        // the model's unknown-subcommand error, as it does outside a script.
        if let Some(rejection) =
            table::subcommand_rejection(command, &args, self.ctx.node.config.client_commands_7_2)
        {
            return Ok((false, reply_to_lua(lua, &rejection, self.resp3)?));
        }
        let write = command.flags.contains(Flags::WRITE);
        if write && self.read_only {
            return fail(
                lua,
                b"Write commands are not allowed from read-only scripts.",
            );
        }
        // Redis's `scriptVerifyOOM`: out of memory before the script, its first write
        // may not be one that takes memory.
        let denyoom = command.flags.contains(Flags::DENYOOM);
        if denyoom && !self.outcome.wrote && self.ctx.node.oom_before_command {
            let error = format!("-{}", crate::model::setup::eviction::OOM);
            return fail(lua, error.as_bytes());
        }
        if write {
            self.outcome.wrote = true;
            self.ctx.node.script_watch.note_write();
        }
        self.client.protocol = if self.resp3 {
            Protocol::Resp3
        } else {
            Protocol::Resp2
        };
        let now_ms = self.ctx.now_ms;
        let ran = self.ctx.node.run(command, &mut self.client, &args, now_ms);
        if write && self.propagate_aof {
            let effects = ran.effects.commands(&args);
            self.outcome.effects.extend(effects);
        } else if command.name == "select" && !ran.reply.is_error() {
            // Later writes replay in the database the script selected.
            self.outcome.effects.push(args);
        }
        let ok = !ran.reply.is_error();
        Ok((ok, reply_to_lua(lua, &ran.reply, self.resp3)?))
    }

    fn acl_check_cmd(&self, lua: &Lua, args: MultiValue) -> mlua::Result<(bool, Value)> {
        let args = match command_args(args) {
            Ok(args) => args,
            Err(message) => return fail(lua, message),
        };
        let known = match script_lookup(&args, self.ctx.node.config.client_commands_7_2) {
            Ok(_) | Err(Refusal::Arity | Refusal::NoScript) => true,
            Err(Refusal::Unknown) => false,
        };
        if !known {
            return fail(lua, b"Invalid command passed to redis.acl_check_cmd()");
        }
        // The model has one user, allowed everything.
        Ok((true, Value::Boolean(true)))
    }

    fn setresp(&mut self, lua: &Lua, args: &[Value]) -> mlua::Result<(bool, Value)> {
        if args.len() != 1 {
            return fail(lua, b"redis.setresp() requires one argument.");
        }
        match lua_number(lua, &args[0]).map(|n| n as i32) {
            Some(2) => self.resp3 = false,
            Some(3) => self.resp3 = true,
            _ => return fail(lua, b"RESP version must be 2 or 3."),
        }
        Ok((true, Value::Nil))
    }

    fn set_repl(&mut self, lua: &Lua, args: &[Value]) -> mlua::Result<(bool, Value)> {
        if args.len() != 1 {
            return fail(lua, b"redis.set_repl() requires two arguments.");
        }
        let flags = lua_number(lua, &args[0]).map_or(0, |n| n as i32);
        if flags & !3 != 0 {
            return fail(
                lua,
                b"Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.",
            );
        }
        self.propagate_aof = flags & 1 != 0;
        Ok((true, Value::Nil))
    }

    /// Redis's `math.random`: one draw from the node's generator, then Lua 5.1's rules.
    fn random(&mut self, lua: &Lua, args: &[Value]) -> mlua::Result<(bool, Value)> {
        let r = self.ctx.node.scripting.rand.next_unit();
        let number = match args.len() {
            0 => r,
            1 => {
                let upper = match check_int(lua, args, 1, "random") {
                    Ok(upper) => upper,
                    Err(message) => return fail_text(lua, &message),
                };
                if upper < 1 {
                    return fail_text(lua, "bad argument #1 to 'random' (interval is empty)");
                }
                (r * f64::from(upper)).floor() + 1.0
            }
            2 => {
                let lower = match check_int(lua, args, 1, "random") {
                    Ok(lower) => lower,
                    Err(message) => return fail_text(lua, &message),
                };
                let upper = match check_int(lua, args, 2, "random") {
                    Ok(upper) => upper,
                    Err(message) => return fail_text(lua, &message),
                };
                if lower > upper {
                    return fail_text(lua, "bad argument #2 to 'random' (interval is empty)");
                }
                (r * (f64::from(upper) - f64::from(lower) + 1.0)).floor() + f64::from(lower)
            }
            _ => return fail_text(lua, "wrong number of arguments"),
        };
        Ok((true, Value::Number(number)))
    }

    fn randomseed(&mut self, lua: &Lua, args: &[Value]) -> mlua::Result<(bool, Value)> {
        match check_int(lua, args, 1, "randomseed") {
            Ok(seed) => {
                self.ctx.node.scripting.rand.seed(seed);
                Ok((true, Value::Nil))
            }
            Err(message) => fail_text(lua, &message),
        }
    }
}
