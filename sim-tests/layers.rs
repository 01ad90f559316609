//! The layers between amnesia's modules: a scan of the imports in `src/` that fails when
//! a cycle appears between the crate's top-level modules or between the modules of the
//! shared world (`src/world/`), or when an engine (`src/engine/`) reaches another, or when
//! one of the two models breaks its rooms (`MODEL_ROOMS`, `PG_ROOMS`: an import upward, a
//! module outside the rooms, a cycle inside a room but the Redis model's declared dispatch
//! circle), and prints the cycle with the path behind each step.
//!
//! A module depends on another when it names it in a `crate::`, `super::` or `self::`
//! path (a `use` item or an inline path), or through a child module's name; a path
//! through a re-export (`crate::Store`, `crate::runner::RunReport`) counts as a
//! dependency on the module that defines the item. Test code (`#[cfg(test)]` items,
//! `tests.rs` files) is left out: tests may reach anywhere. Cycles elsewhere (inside
//! `runner/`, `check/`, `real/`, …) are printed as information.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

/// The directory of the shared world every tier runs, whose modules must not form cycles.
const WORLD: &str = "world";

/// The directory of the engines that run the world: each depends on the world, none on
/// another engine, and the world on none of them.
const ENGINES: &str = "engine";

// ---------------------------------------------------------------------------------------
// The Redis model's rooms (src/model/), checked by `rooms_violations`.

/// The rooms of the Redis model, bottom floor first: each imports only the rooms below it
/// (ARCHITECTURE.md, "The Redis model's rooms").
const MODEL_ROOMS: &[&str] = &[
    "setup",
    "data",
    "persistence",
    "protocol",
    "state",
    "script",
    "commands",
    "server",
];

/// The one allowed circle: the Redis model's command dispatch. The table (`table`) names
/// every handler (`cmd`); EXEC runs its queued commands back through the table, and EVAL
/// starts the Lua engine (`script::engine`), whose `redis.call` dispatches back through the
/// table: the one import from a room (`script`) to a room above it (`commands`). Breaking
/// it would only hide the table behind a trait object.
const MODEL_DISPATCH: &[&str] = &[
    "model::commands::table",
    "model::commands::cmd",
    "model::script::engine",
];

/// The Redis model's rooms and its circle, as `rooms_violations` reads them.
const MODEL: Rooms = Rooms {
    dir: "model",
    rooms: MODEL_ROOMS,
    circle: MODEL_DISPATCH,
};

/// The PostgreSQL model's rooms (`src/pg/`), bottom floor first, in the reverse of the
/// order a statement travels: a room imports only the rooms before it in this list.
/// `src/pg/mod.rs`, the house's front door, declares them and re-exports what the rest of
/// the crate names.
const PG_ROOMS: &[&str] = &[
    "error", "settings", "vector", "types", "storage", "sql", "exec", "session", "server", "admin",
    "wire",
];

/// The PostgreSQL model's rooms, as `rooms_violations` reads them: no circle allowed.
const PG: Rooms = Rooms {
    dir: "pg",
    rooms: PG_ROOMS,
    circle: &[],
};

/// A module path, `a::b::c`; the crate root is the empty string.
type Module = String;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    PathSep,
    Punct(char),
}

/// One path a module names: where it stands, its segments, and the name it binds (for a
/// `use` item, so that re-exports can be followed).
struct Ref {
    scope: Vec<String>,
    path: Vec<String>,
    binds: Option<String>,
}

/// A crate's modules: those read from files (each with the paths its file names) and
/// those declared inline (mapped to the file module that holds them).
#[derive(Default)]
struct Crate {
    files: BTreeMap<Module, Vec<(PathBuf, Vec<Ref>)>>,
    inline: BTreeMap<Module, Module>,
}

// ---------------------------------------------------------------------------------------
// Lexing: identifiers, `::`, punctuation and string contents; comments dropped.

fn lex(source: &str) -> Vec<Tok> {
    let chars: Vec<char> = source.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        i = lex_one(&chars, i, &mut toks);
    }
    toks
}

fn lex_one(c: &[char], i: usize, toks: &mut Vec<Tok>) -> usize {
    let at = |k: usize| c.get(k).copied().unwrap_or('\0');
    match at(i) {
        ch if ch.is_whitespace() => i + 1,
        '/' if at(i + 1) == '/' => skip_line(c, i),
        '/' if at(i + 1) == '*' => skip_block(c, i),
        '"' => string(c, i, 0, toks),
        '\'' => char_or_lifetime(c, i),
        ':' if at(i + 1) == ':' => {
            toks.push(Tok::PathSep);
            i + 2
        }
        ch if ch.is_ascii_digit() => take_while(c, i, |ch| ch.is_alphanumeric() || ch == '_'),
        ch if ch.is_alphabetic() || ch == '_' => ident(c, i, toks),
        ch => {
            toks.push(Tok::Punct(ch));
            i + 1
        }
    }
}

fn take_while(c: &[char], mut i: usize, keep: impl Fn(char) -> bool) -> usize {
    while i < c.len() && keep(c[i]) {
        i += 1;
    }
    i
}

fn skip_line(c: &[char], i: usize) -> usize {
    take_while(c, i, |ch| ch != '\n')
}

fn skip_block(c: &[char], mut i: usize) -> usize {
    let mut depth = 0;
    while i < c.len() {
        if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            depth += 1;
            i += 2;
        } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    i
}

/// A string literal starting at `i` (its `"`), raw with `hashes` `#`s when above zero.
fn string(c: &[char], i: usize, hashes: usize, toks: &mut Vec<Tok>) -> usize {
    let raw = hashes > 0 || (i > 0 && c[i - 1] == 'r');
    let mut k = i + 1;
    let mut text = String::new();
    while k < c.len() {
        if !raw && c[k] == '\\' {
            text.push(c[k + 1]);
            k += 2;
        } else if c[k] == '"' && (k + 1..=k + hashes).all(|h| c.get(h) == Some(&'#')) {
            toks.push(Tok::Str(text));
            return k + 1 + hashes;
        } else {
            text.push(c[k]);
            k += 1;
        }
    }
    k
}

/// `'x'`, `'\n'` and `'\u{..}'` are characters; `'a` is a lifetime (its name lexes next).
fn char_or_lifetime(c: &[char], i: usize) -> usize {
    if c.get(i + 1) == Some(&'\\') {
        return take_while(c, i + 2, |ch| ch != '\'') + 1;
    }
    if c.get(i + 2) == Some(&'\'') {
        return i + 3;
    }
    i + 1
}

fn ident(c: &[char], i: usize, toks: &mut Vec<Tok>) -> usize {
    let end = take_while(c, i, |ch| ch.is_alphanumeric() || ch == '_');
    let word: String = c[i..end].iter().collect();
    let prefix = matches!(word.as_str(), "r" | "b" | "br" | "c" | "cr");
    if prefix && matches!(c.get(end), Some('"') | Some('#')) {
        let hashes = take_while(c, end, |ch| ch == '#') - end;
        if c.get(end + hashes) == Some(&'"') {
            return string(c, end + hashes, hashes, toks);
        }
    }
    if word == "b" && c.get(end) == Some(&'\'') {
        return char_or_lifetime(c, end);
    }
    toks.push(Tok::Ident(word));
    end
}

// ---------------------------------------------------------------------------------------
// Test code out: `#[cfg(test)]` and the item after it.

fn without_test_code(toks: Vec<Tok>) -> Vec<Tok> {
    let mut kept = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        if is_cfg_test(&toks, i) {
            i = item_end(&toks, i + 7);
        } else {
            kept.push(toks[i].clone());
            i += 1;
        }
    }
    kept
}

fn is_cfg_test(toks: &[Tok], i: usize) -> bool {
    let want = ["#", "[", "cfg", "(", "test", ")", "]"];
    want.iter().enumerate().all(|(k, w)| match toks.get(i + k) {
        Some(Tok::Punct(p)) => w.len() == 1 && w.starts_with(*p),
        Some(Tok::Ident(name)) => name == w,
        _ => false,
    })
}

/// Where the item starting at `i` ends: its `;` or its closing brace at depth zero, or
/// (for a field or an arm) the `,` or `}` of what holds it.
fn item_end(toks: &[Tok], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < toks.len() {
        match toks[i] {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') if depth == 0 => return i,
            Tok::Punct('}') => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            Tok::Punct(';') if depth == 0 => return i + 1,
            Tok::Punct(',') if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    i
}

// ---------------------------------------------------------------------------------------
// Reading a crate: its files from the root's `mod` declarations, each file's paths.

/// The hidden namespace (`src/internal.rs`) that holds the crate's modules at their own
/// file paths: transparent here, so `crate::internal::runner` is the module `runner`.
const INTERNAL: &str = "internal";

fn without_internal(path: &[String]) -> Vec<String> {
    match path.split_first() {
        Some((first, rest)) if first == INTERNAL => rest.to_vec(),
        _ => path.to_vec(),
    }
}

fn read_crate(root: &Path) -> Crate {
    let mut krate = Crate::default();
    read_module(&mut krate, root, Vec::new());
    krate
}

fn read_module(krate: &mut Crate, file: &Path, module: Vec<String>) {
    let source = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file:?}: {e}"));
    let toks = without_test_code(lex(&source));
    let scan = scan(&toks, &module);
    for at in &scan.inline {
        krate.inline.insert(at.join("::"), module.join("::"));
    }
    for (name, path_attr) in scan.children {
        let child = child_file(file, &name, path_attr.as_deref());
        let mut child_module = module.clone();
        if !(module.is_empty() && name == INTERNAL) {
            child_module.push(name);
        }
        read_module(krate, &child, child_module);
    }
    let entry = krate.files.entry(module.join("::")).or_default();
    entry.push((file.to_path_buf(), scan.refs));
}

/// The file of `mod name;` declared in `parent`, or at its `#[path]`.
fn child_file(parent: &Path, name: &str, path_attr: Option<&str>) -> PathBuf {
    let stem = parent.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let dir = parent.parent().expect("a file has a directory");
    if let Some(path) = path_attr {
        return dir.join(path);
    }
    let dir = match stem {
        "lib" | "main" | "mod" => dir.to_path_buf(),
        _ => dir.join(stem),
    };
    let flat = dir.join(format!("{name}.rs"));
    if flat.exists() {
        flat
    } else {
        dir.join(name).join("mod.rs")
    }
}

#[derive(Default)]
struct Scan {
    refs: Vec<Ref>,
    children: Vec<(String, Option<String>)>,
    inline: Vec<Vec<String>>,
}

/// Walks a file's tokens: `use` items, inline paths, `mod` declarations, inline modules
/// (which `super::` and `self::` inside them are relative to).
fn scan(toks: &[Tok], module: &[String]) -> Scan {
    let mut out = Scan::default();
    let mut scope: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        let here: Vec<String> = module
            .iter()
            .cloned()
            .chain(scope.iter().map(|s| s.0.clone()))
            .collect();
        match &toks[i] {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth -= 1;
                if scope.last().is_some_and(|s| s.1 > depth) {
                    scope.pop();
                }
            }
            Tok::Ident(w) if w == "use" => {
                i = use_item(toks, i + 1, &here, &mut out.refs);
                continue;
            }
            Tok::Ident(w) if w == "mod" => {
                if let Some(name) = mod_decl(toks, i, &mut out) {
                    let mut at = here.clone();
                    at.push(name.clone());
                    out.inline.push(at);
                    scope.push((name, depth + 1));
                }
            }
            Tok::Ident(w) if is_path_start(toks, i, w) => {
                let (path, next) = inline_path(toks, i);
                out.refs.push(Ref {
                    scope: here,
                    path,
                    binds: None,
                });
                i = next;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

fn is_path_start(toks: &[Tok], i: usize, word: &str) -> bool {
    let starts = matches!(word, "crate" | "super" | "self");
    let after = toks.get(i + 1) == Some(&Tok::PathSep);
    let before = i.checked_sub(1).map(|k| &toks[k]);
    let macro_crate = matches!(before, Some(Tok::Punct('$')) | Some(Tok::PathSep));
    starts && after && !macro_crate
}

fn inline_path(toks: &[Tok], mut i: usize) -> (Vec<String>, usize) {
    let mut path = Vec::new();
    while let Some(Tok::Ident(w)) = toks.get(i) {
        path.push(w.clone());
        if toks.get(i + 1) != Some(&Tok::PathSep) {
            return (path, i + 1);
        }
        i += 2;
    }
    (path, i)
}

/// `mod name;` (recorded as a child file, with a preceding `#[path = ".."]`) or
/// `mod name {` (returned: an inline module opens).
fn mod_decl(toks: &[Tok], i: usize, out: &mut Scan) -> Option<String> {
    let Some(Tok::Ident(name)) = toks.get(i + 1) else {
        return None;
    };
    match toks.get(i + 2) {
        Some(Tok::Punct(';')) => {
            out.children.push((name.clone(), path_attr(toks, i)));
            None
        }
        Some(Tok::Punct('{')) => Some(name.clone()),
        _ => None,
    }
}

/// The `"…"` of a `#[path = "…"]` among the few tokens before `mod`.
fn path_attr(toks: &[Tok], i: usize) -> Option<String> {
    let from = i.saturating_sub(12);
    let window = &toks[from..i];
    let at = window
        .iter()
        .rposition(|t| *t == Tok::Ident("path".into()))?;
    match window.get(at + 2) {
        Some(Tok::Str(path)) if window.get(at + 1) == Some(&Tok::Punct('=')) => Some(path.clone()),
        _ => None,
    }
}

/// A `use` tree from `i` (after the keyword) to its `;`, flattened to paths.
fn use_item(toks: &[Tok], i: usize, here: &[String], refs: &mut Vec<Ref>) -> usize {
    let mut paths = Vec::new();
    let end = use_tree(toks, i, Vec::new(), &mut paths);
    for (mut path, binds) in paths {
        if path.last().is_some_and(|s| s == "self") {
            path.pop();
        }
        let binds = binds.or_else(|| path.last().cloned()).filter(|b| b != "*");
        refs.push(Ref {
            scope: here.to_vec(),
            path,
            binds,
        });
    }
    toks[end..]
        .iter()
        .position(|t| *t == Tok::Punct(';'))
        .map_or(toks.len(), |p| end + p + 1)
}

fn use_tree(
    toks: &[Tok],
    mut i: usize,
    mut path: Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) -> usize {
    if toks.get(i) == Some(&Tok::PathSep) {
        i += 1;
    }
    loop {
        match toks.get(i) {
            Some(Tok::Ident(w)) if w != "as" => path.push(w.clone()),
            Some(Tok::Punct('*')) => path.push("*".into()),
            Some(Tok::Punct('{')) => return use_group(toks, i + 1, &path, out),
            _ => break,
        }
        i += 1;
        if toks.get(i) != Some(&Tok::PathSep) {
            break;
        }
        i += 1;
    }
    let mut binds = None;
    if toks.get(i) == Some(&Tok::Ident("as".into())) {
        if let Some(Tok::Ident(alias)) = toks.get(i + 1) {
            binds = Some(alias.clone());
        }
        i += 2;
    }
    out.push((path, binds));
    i
}

fn use_group(
    toks: &[Tok],
    mut i: usize,
    path: &[String],
    out: &mut Vec<(Vec<String>, Option<String>)>,
) -> usize {
    while i < toks.len() {
        match toks[i] {
            Tok::Punct('}') => return i + 1,
            Tok::Punct(',') => i += 1,
            _ => i = use_tree(toks, i, path.to_vec(), out),
        }
    }
    i
}

// ---------------------------------------------------------------------------------------
// Resolving: a path to the file module that defines what it names.

/// Each scope's `use` bindings: name to absolute path.
type Imports = BTreeMap<Module, BTreeMap<String, Vec<String>>>;

impl Crate {
    fn is_module(&self, module: &str) -> bool {
        self.files.contains_key(module) || self.inline.contains_key(module)
    }

    fn file_of(&self, module: &str) -> Module {
        self.inline
            .get(module)
            .cloned()
            .unwrap_or_else(|| module.to_string())
    }

    fn refs(&self) -> impl Iterator<Item = (&Module, &PathBuf, &Ref)> {
        self.files.iter().flat_map(|(module, files)| {
            files
                .iter()
                .flat_map(move |(file, refs)| refs.iter().map(move |r| (module, file, r)))
        })
    }

    fn imports(&self) -> Imports {
        let mut imports = Imports::new();
        for (_, _, r) in self.refs() {
            let (Some(name), Some(path)) = (&r.binds, self.absolute(&r.scope, &r.path)) else {
                continue;
            };
            imports
                .entry(r.scope.join("::"))
                .or_default()
                .insert(name.clone(), path);
        }
        imports
    }

    /// `path` named in `scope` from the crate root, or `None` when it leaves the crate
    /// (std, a dependency, a local item).
    fn absolute(&self, scope: &[String], path: &[String]) -> Option<Vec<String>> {
        let path = match path.split_first() {
            Some((first, rest)) if scope.is_empty() && first == INTERNAL => rest,
            _ => path,
        };
        let (first, rest) = path.split_first()?;
        let mut base = scope.to_vec();
        match first.as_str() {
            "crate" => return Some(without_internal(rest)),
            "self" => {}
            "super" => {
                let supers = path.iter().take_while(|s| *s == "super").count();
                base.truncate(base.len().checked_sub(supers)?);
                return Some(
                    base.into_iter()
                        .chain(path[supers..].iter().cloned())
                        .collect(),
                );
            }
            _ if self.is_module(&[scope, &path[..1]].concat().join("::")) => {
                return Some([scope, path].concat())
            }
            _ => return None,
        }
        Some(base.into_iter().chain(rest.iter().cloned()).collect())
    }

    /// The file module defining what `path` names, through re-exports.
    fn defining(&self, imports: &Imports, path: &[String], hops: usize) -> Module {
        let known = (0..=path.len())
            .rev()
            .find(|&k| self.is_module(&path[..k].join("::")));
        let k = known.unwrap_or(0);
        let module = path[..k].join("::");
        let reexport = path.get(k).and_then(|name| imports.get(&module)?.get(name));
        match reexport {
            Some(target) if hops < 8 => {
                let next: Vec<String> = target.iter().chain(&path[k + 1..]).cloned().collect();
                self.defining(imports, &next, hops + 1)
            }
            _ => self.file_of(&module),
        }
    }

    /// Every dependency between file modules, each with the first path behind it.
    fn edges(&self) -> BTreeMap<(Module, Module), String> {
        let imports = self.imports();
        let mut edges = BTreeMap::new();
        for (module, file, r) in self.refs() {
            let Some(path) = self.absolute(&r.scope, &r.path) else {
                continue;
            };
            let target = self.defining(&imports, &path, 0);
            if target != *module {
                let file = file
                    .strip_prefix(env!("CARGO_MANIFEST_DIR"))
                    .unwrap_or(file);
                let witness = format!("{}: {}", file.display(), r.path.join("::"));
                edges.entry((module.clone(), target)).or_insert(witness);
            }
        }
        edges
    }
}

// ---------------------------------------------------------------------------------------
// Graphs of modules and their cycles.

/// Node to node, each step with the path behind it.
type Graph = BTreeMap<String, BTreeMap<String, String>>;

/// The graph between the modules directly inside `dir` (`""`: the top level); `dir`'s
/// own file is the node `dir/mod.rs`.
fn graph_within(edges: &BTreeMap<(Module, Module), String>, dir: &str) -> Graph {
    let mut graph = Graph::new();
    for ((from, to), witness) in edges {
        let (Some(from), Some(to)) = (node_in(from, dir), node_in(to, dir)) else {
            continue;
        };
        if from != to {
            graph
                .entry(from)
                .or_default()
                .entry(to)
                .or_insert_with(|| witness.clone());
        }
    }
    graph
}

fn node_in(module: &str, dir: &str) -> Option<String> {
    if dir.is_empty() {
        let top = module.split("::").next().filter(|s| !s.is_empty());
        return Some(top.unwrap_or("lib.rs").to_string());
    }
    if module == dir {
        return Some(format!("{dir}/mod.rs"));
    }
    let rest = module.strip_prefix(dir)?.strip_prefix("::")?;
    rest.split("::").next().map(str::to_string)
}

fn reachable(graph: &Graph, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut queue = VecDeque::from([from.to_string()]);
    while let Some(node) = queue.pop_front() {
        for next in graph.get(&node).into_iter().flat_map(|n| n.keys()) {
            if seen.insert(next.clone()) {
                queue.push_back(next.clone());
            }
        }
    }
    seen
}

/// The strongly connected components of more than one node: every cycle lies in one.
fn components(graph: &Graph) -> Vec<BTreeSet<String>> {
    let reach: BTreeMap<&String, BTreeSet<String>> =
        graph.keys().map(|n| (n, reachable(graph, n))).collect();
    let mut found: Vec<BTreeSet<String>> = Vec::new();
    for (node, from) in &reach {
        let scc: BTreeSet<String> = from
            .iter()
            .filter(|other| reach.get(other).is_some_and(|back| back.contains(*node)))
            .cloned()
            .collect();
        if scc.len() > 1 && !found.contains(&scc) {
            found.push(scc);
        }
    }
    found
}

/// A shortest cycle through the component's first node.
fn cycle(graph: &Graph, scc: &BTreeSet<String>) -> Vec<String> {
    let start = scc.first().expect("a component has nodes").clone();
    let mut previous: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = VecDeque::from([start.clone()]);
    while let Some(node) = queue.pop_front() {
        for next in graph[&node].keys().filter(|n| scc.contains(*n)) {
            if *next == start {
                let mut path = vec![start.clone(), node.clone()];
                while let Some(p) = previous.get(path.last().unwrap()) {
                    path.push(p.clone());
                }
                path.reverse();
                return path;
            }
            if !previous.contains_key(next) {
                previous.insert(next.clone(), node.clone());
                queue.push_back(next.clone());
            }
        }
    }
    unreachable!("a component's nodes reach each other")
}

/// Each component: its members and one cycle in it, each step with the path behind it.
fn describe(graph: &Graph, sccs: &[BTreeSet<String>]) -> String {
    let mut text = String::new();
    for scc in sccs {
        let members: Vec<&str> = scc.iter().map(String::as_str).collect();
        let path = cycle(graph, scc);
        text += &format!(
            "  cycle {}   (component: {})\n",
            path.join(" → "),
            members.join(", ")
        );
        for step in path.windows(2) {
            text += &format!(
                "      {} → {}   {}\n",
                step[0], step[1], graph[&step[0]][&step[1]]
            );
        }
    }
    text
}

// ---------------------------------------------------------------------------------------
// Rooms: a directory whose modules are floors, imports running downward. Generic: the
// Redis model's rules call it with `MODEL`, and any other directory may.

/// Imports between file modules, each with the first path behind it.
type Edges = BTreeMap<(Module, Module), String>;

/// A directory divided into rooms.
struct Rooms<'a> {
    /// The directory's module path (`model`).
    dir: &'a str,
    /// Its rooms, bottom floor first: each may import only the rooms below it.
    rooms: &'a [&'a str],
    /// The modules (files or folders) of the one allowed circle, if any: an upward import
    /// between two of them, and a cycle whose members each are or hold one, pass.
    circle: &'a [&'a str],
}

impl Rooms<'_> {
    /// Whether `module` lies inside one of the circle's modules.
    fn in_circle(&self, module: &str) -> bool {
        let inside = |c: &&str| module == *c || module.starts_with(&format!("{c}::"));
        self.circle.iter().any(inside)
    }

    /// Whether `module` is, or holds, one of the circle's modules.
    fn holds_circle(&self, module: &str) -> bool {
        let held = |c: &&str| *c == module || c.starts_with(&format!("{module}::"));
        self.circle.iter().any(held)
    }

    /// The room (its floor, 0 at the bottom) that holds `module`, if any.
    fn floor(&self, module: &str) -> Option<usize> {
        let room = node_in(module, self.dir)?;
        self.rooms.iter().position(|r| *r == room)
    }

    /// The modules inside `room`, its own included.
    fn within<'m>(&self, modules: &'m BTreeSet<Module>, room: &str) -> Vec<&'m Module> {
        let top = format!("{}::{room}", self.dir);
        let inside = |m: &&Module| **m == top || m.starts_with(&format!("{top}::"));
        modules.iter().filter(inside).collect()
    }
}

/// Imports from a room to a room above it, but between two modules of the circle.
fn upward_imports(edges: &Edges, at: &Rooms) -> Vec<String> {
    let mut wrong = Vec::new();
    for ((from, to), witness) in edges {
        let (Some(low), Some(high)) = (at.floor(from), at.floor(to)) else {
            continue;
        };
        if high > low && !(at.in_circle(from) && at.in_circle(to)) {
            let (dir, a, b) = (at.dir, at.rooms[low], at.rooms[high]);
            wrong.push(format!(
                "{dir}::{a} imports {dir}::{b}, a room above it: {witness}"
            ));
        }
    }
    wrong
}

/// Modules directly inside the directory that are no room (its own `mod.rs` aside).
fn stray_modules(modules: &BTreeSet<Module>, at: &Rooms) -> Vec<String> {
    let own = format!("{}/mod.rs", at.dir);
    let strays: BTreeSet<String> = modules
        .iter()
        .filter_map(|m| node_in(m, at.dir))
        .filter(|node| *node != own && !at.rooms.contains(&node.as_str()))
        .collect();
    let (dir, listed) = (at.dir, at.rooms.join(", "));
    let say = |s: String| format!("{dir}::{s} is not one of the rooms of {dir} ({listed})");
    strays.into_iter().map(say).collect()
}

/// The folders of the rooms: each room and every folder inside it.
fn room_folders(modules: &BTreeSet<Module>, at: &Rooms) -> BTreeSet<Module> {
    let mut folders = BTreeSet::new();
    for room in at.rooms {
        let top = format!("{}::{room}", at.dir);
        for module in at.within(modules, room) {
            let mut folder = module.rsplit_once("::").map(|(f, _)| f);
            while let Some(f) = folder.filter(|f| f.len() >= top.len()) {
                folders.insert(f.to_string());
                folder = f.rsplit_once("::").map(|(f, _)| f);
            }
        }
    }
    folders
}

/// Cycles between the modules inside any folder of the rooms, but the circle's: a cycle
/// passes only when each of its members is, or holds, a module of the circle.
fn cycles_in_rooms(modules: &BTreeSet<Module>, edges: &Edges, at: &Rooms) -> Vec<String> {
    let mut wrong = Vec::new();
    for folder in room_folders(modules, at) {
        let (graph, sccs) = cycles_within(edges, &folder);
        let in_circle = |node: &String| at.holds_circle(&format!("{folder}::{node}"));
        let other: Vec<_> = sccs
            .into_iter()
            .filter(|scc| !scc.iter().all(in_circle))
            .collect();
        if !other.is_empty() {
            wrong.push(format!("in {folder}:\n{}", describe(&graph, &other)));
        }
    }
    wrong
}

/// Everything that breaks the rooms: an import from a room to a room above it, a module
/// directly inside the directory that is no room, a cycle between the modules inside any
/// room's folders (the circle's aside).
fn rooms_violations(modules: &BTreeSet<Module>, edges: &Edges, at: &Rooms) -> Vec<String> {
    let mut wrong = upward_imports(edges, at);
    wrong.extend(stray_modules(modules, at));
    wrong.extend(cycles_in_rooms(modules, edges, at));
    wrong
}

/// Information: the files of each room, bottom floor first.
fn print_room_sizes(modules: &BTreeSet<Module>, at: &Rooms) {
    for room in at.rooms {
        let files = at.within(modules, room).len();
        println!("{} room {room}: {files} files, its mod.rs included", at.dir);
    }
}

// ---------------------------------------------------------------------------------------
// The crate as read once.

struct Layers {
    lib: BTreeMap<(Module, Module), String>,
    /// The library's file modules (each read from a file).
    lib_modules: BTreeSet<Module>,
    bin: BTreeMap<(Module, Module), String>,
    files: BTreeSet<PathBuf>,
}

fn layers() -> &'static Layers {
    static LAYERS: std::sync::OnceLock<Layers> = std::sync::OnceLock::new();
    LAYERS.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let lib = read_crate(&root.join("src/lib.rs"));
        let bin = read_crate(&root.join("cli/src/main.rs"));
        let files = [&lib, &bin]
            .iter()
            .flat_map(|k| k.files.values().flatten().map(|(file, _)| file.clone()))
            .collect();
        Layers {
            lib: lib.edges(),
            lib_modules: lib.files.keys().cloned().collect(),
            bin: bin.edges(),
            files,
        }
    })
}

fn cycles_within(
    edges: &BTreeMap<(Module, Module), String>,
    dir: &str,
) -> (Graph, Vec<BTreeSet<String>>) {
    let graph = graph_within(edges, dir);
    let sccs = components(&graph);
    (graph, sccs)
}

fn directories(edges: &BTreeMap<(Module, Module), String>) -> BTreeSet<String> {
    let modules = edges.keys().flat_map(|(a, b)| [a, b]);
    modules
        .filter_map(|m| m.rsplit_once("::").map(|(dir, _)| dir.to_string()))
        .collect()
}

// ---------------------------------------------------------------------------------------
// The rules.

#[test]
fn no_cycle_between_top_level_modules() {
    let (graph, sccs) = cycles_within(&layers().lib, "");
    assert!(
        sccs.is_empty(),
        "cycles between src/'s top-level modules:\n{}",
        describe(&graph, &sccs)
    );
}

#[test]
fn no_cycle_between_the_world_modules() {
    let (graph, sccs) = cycles_within(&layers().lib, WORLD);
    assert!(
        sccs.is_empty(),
        "cycles between src/{WORLD}/'s modules:\n{}",
        describe(&graph, &sccs)
    );
}

#[test]
fn the_engines_depend_on_the_world_alone() {
    let edges = &layers().lib;
    let among = graph_within(edges, ENGINES);
    let engine = |m: &str| m.starts_with(&format!("{ENGINES}::"));
    let world = |m: &str| m == WORLD || m.starts_with(&format!("{WORLD}::"));
    let mut wrong: Vec<String> = among.values().flat_map(|to| to.values().cloned()).collect();
    let upward = edges
        .iter()
        .filter(|((from, to), _)| world(from) && engine(to));
    wrong.extend(upward.map(|(_, witness)| witness.clone()));
    assert!(
        wrong.is_empty(),
        "an engine reaches another, or the world an engine:\n{wrong:#?}"
    );
}

/// Fails with `what` and the violations, if there are any.
fn assert_none(wrong: &[String], what: &str) {
    assert!(wrong.is_empty(), "{what}:\n{}", wrong.join("\n"));
}

#[test]
fn the_model_rooms_import_downward() {
    let wrong = upward_imports(&layers().lib, &MODEL);
    assert_none(
        &wrong,
        "imports from a room of src/model/ to a room above it",
    );
}

#[test]
fn the_model_holds_only_rooms() {
    let wrong = stray_modules(&layers().lib_modules, &MODEL);
    assert_none(
        &wrong,
        "modules in src/model/ outside its rooms (MODEL_ROOMS)",
    );
}

#[test]
fn the_model_rooms_keep_only_the_dispatch_circle() {
    let layers = layers();
    let wrong = cycles_in_rooms(&layers.lib_modules, &layers.lib, &MODEL);
    assert_none(&wrong, "cycles in src/model/'s rooms besides its dispatch");
    print_room_sizes(&layers.lib_modules, &MODEL);
}

/// The room rules catch what they are for, on a made-up directory: an upward import, a
/// module outside the rooms, a cycle inside a room; and they let the declared circle pass.
#[test]
fn the_room_rules_fail_on_made_up_breaks() {
    let modules: BTreeSet<Module> = ["m", "m::low", "m::low::a", "m::low::b", "m::high"]
        .map(String::from)
        .into();
    let edge = |from: &str, to: &str| ((from.to_string(), to.to_string()), "made up".to_string());
    let at = |circle| Rooms {
        dir: "m",
        rooms: &["low", "high"],
        circle,
    };
    let down: Edges = [edge("m::high", "m::low::a"), edge("m::low::a", "m::low::b")].into();
    assert!(rooms_violations(&modules, &down, &at(&[])).is_empty());

    let mut up = down.clone();
    up.extend([edge("m::low::b", "m::high")]);
    let wrong = rooms_violations(&modules, &up, &at(&[]));
    assert!(
        wrong.len() == 1 && wrong[0].contains("a room above it"),
        "{wrong:?}"
    );
    let circle = at(&["m::low::b", "m::high"]);
    assert!(rooms_violations(&modules, &up, &circle).is_empty());

    let mut cycle = down.clone();
    cycle.extend([edge("m::low::b", "m::low::a")]);
    let wrong = rooms_violations(&modules, &cycle, &at(&[]));
    assert!(wrong.len() == 1 && wrong[0].contains("cycle"), "{wrong:?}");
    let circle = at(&["m::low::a", "m::low::b"]);
    assert!(rooms_violations(&modules, &cycle, &circle).is_empty());

    let mut stray = modules.clone();
    stray.insert("m::loose".to_string());
    let wrong = rooms_violations(&stray, &down, &at(&[]));
    assert!(
        wrong.len() == 1 && wrong[0].contains("m::loose"),
        "{wrong:?}"
    );
}

#[test]
fn the_pg_rooms_import_downward_without_a_circle() {
    let layers = layers();
    let wrong = rooms_violations(&layers.lib_modules, &layers.lib, &PG);
    assert_none(
        &wrong,
        "src/pg/'s rooms (PG_ROOMS): imports upward, strays or cycles",
    );
    print_room_sizes(&layers.lib_modules, &PG);
}

/// Information, never a failure: the cycles inside every other directory of both crates.
#[test]
fn cycles_elsewhere_are_printed() {
    for (krate, edges) in [("lib", &layers().lib), ("bin", &layers().bin)] {
        for dir in directories(edges) {
            let (graph, sccs) = cycles_within(edges, &dir);
            if !sccs.is_empty() {
                println!("{krate} {dir}/:\n{}", describe(&graph, &sccs));
            }
        }
    }
}

/// The scan reaches every file of `src/` but tests: a module it missed would hide cycles.
#[test]
fn every_source_file_is_read() {
    let mut missed = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut stack = vec![root.join("src"), root.join("cli/src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("src/ reads") {
            let path = entry.expect("an entry").path();
            let source = path.extension().is_some_and(|e| e == "rs");
            if path.is_dir() {
                stack.push(path);
            } else if source && !path.ends_with("tests.rs") && !layers().files.contains(&path) {
                missed.push(path);
            }
        }
    }
    assert!(
        missed.is_empty(),
        "files the scan did not reach: {missed:?}"
    );
}
