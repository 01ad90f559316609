//! The one piece of the engine written against Lua's C API: a C closure around a raw
//! Rust function that answers `(ok, value)`, which returns `value` or raises it.
//!
//! Why C: Redis's `redis.call`, `math.random`, `cjson.encode` ... are C functions, and
//! Lua 5.1 does not tail-call a C function, so `return redis.call(...)` keeps the
//! script's frame and an error is reported at the script's line (`on @user_script:1.`).
//! A Lua wrapper would be tail-called, replacing that frame with `(tail call)`; mlua
//! offers no safe way to raise an arbitrary value (an error table) from Rust.

use mlua::ffi;
use mlua::{Function, Lua, Result};
use std::os::raw::c_int;

/// Calls upvalue 1 (a raw function) with this call's arguments; `(true, v)` returns `v`;
/// `(false, e)` raises `e`, a string getting the caller's position as `luaL_error` gives.
unsafe extern "C-unwind" fn raising_call(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua as a C closure made by `make_raising`, whose upvalue 1 is a
    // function; the stack holds only this call's arguments. Only Lua API calls run here
    // (no Rust values with destructors live across `lua_call`/`lua_error`'s longjmp).
    unsafe {
        let args = ffi::lua_gettop(state);
        ffi::luaL_checkstack(state, 3, std::ptr::null());
        ffi::lua_pushvalue(state, ffi::lua_upvalueindex(1));
        ffi::lua_insert(state, 1);
        ffi::lua_call(state, args, 2);
        if ffi::lua_toboolean(state, -2) != 0 {
            return 1;
        }
        if ffi::lua_type(state, -1) == ffi::LUA_TSTRING {
            ffi::luaL_where(state, 1);
            ffi::lua_insert(state, -2);
            ffi::lua_concat(state, 2);
        }
        ffi::lua_error(state)
    }
}

/// `make_raising(raw)`: the raising C closure over `raw`.
unsafe extern "C-unwind" fn make_raising(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua with the function to wrap as argument 1 (checked).
    unsafe {
        ffi::luaL_checktype(state, 1, ffi::LUA_TFUNCTION);
        ffi::lua_settop(state, 1);
        ffi::lua_pushcclosure(state, raising_call, 1);
        1
    }
}

/// The Lua function `make_raising`, for the prelude.
pub(crate) fn make_raising_function(lua: &Lua) -> Result<Function> {
    // SAFETY: `make_raising` follows the Lua C API protocol (see its body).
    unsafe { lua.create_c_function(make_raising) }
}
