#!/usr/bin/env python3
"""The types of other crates that amnesia's public API shows, from rustdoc's JSON: every
path named in a public item's signature (fields, variants, function signatures, methods
and trait impls of public types, type aliases, trait items), when it belongs to another
crate than std/core/alloc. Prints one `crate::path` per line, sorted, each once.

Usage: external-types.py amnesia.json (rustdoc JSON built with --document-hidden-items)"""
import json
import sys

STD = {"std", "core", "alloc"}
data = json.load(open(sys.argv[1]))
index, paths, crates = data["index"], data["paths"], data["external_crates"]


def item(id_):
    return index.get(str(id_))


def external_path(id_):
    """`crate::path` of an id from another crate (std's excluded), else None."""
    entry = paths.get(str(id_))
    if entry is None or entry["crate_id"] == 0:
        return None
    crate = crates[str(entry["crate_id"])]["name"]
    if crate in STD:
        return None
    return "::".join(entry["path"])


def types_in(value, found):
    """Every resolved path under a piece of a signature."""
    if isinstance(value, dict):
        if "id" in value and "path" in value and isinstance(value["path"], str):
            name = external_path(value["id"])
            if name:
                found.add(name)
        for child in value.values():
            types_in(child, found)
    elif isinstance(value, list):
        for child in value:
            types_in(child, found)


def walk(id_, seen, found):
    """A public item: its own signature, then what it contains."""
    if id_ in seen:
        return
    seen.add(id_)
    it = item(id_)
    if it is None or it["crate_id"] != 0 or hidden(it):
        return
    kind, inner = next(iter(it["inner"].items()))
    if kind == "module":
        for child in inner["items"]:
            walk(child, seen, found)
        return
    if kind == "use":
        if inner.get("id") is not None:
            walk(inner["id"], seen, found)
        return
    if kind == "impl":
        if inner.get("is_synthetic") or inner.get("blanket_impl") is not None:
            return
        types_in(inner.get("trait"), found)
        types_in(inner.get("generics"), found)
        for child in inner["items"]:
            child_item = item(child)
            if child_item and (inner.get("trait") or child_item["visibility"] == "public"):
                walk(child, seen, found)
        return
    if not isinstance(inner, dict):
        return  # a macro: its source, no signature
    types_in({k: v for k, v in inner.items() if k not in ("impls", "items", "variants", "kind", "implementations")}, found)
    for child in children(inner):
        child_item = item(child)
        if child_item is None:
            continue
        child_kind = next(iter(child_item["inner"]))
        if child_kind == "struct_field" and child_item["visibility"] != "public":
            continue
        walk(child, seen, found)


def hidden(it):
    """`#[doc(hidden)]`: the JSON is built with hidden items (a re-export of a hidden
    module's item points into it), which are not part of the public API themselves."""
    return any("doc(hidden)" in json.dumps(attr) for attr in it.get("attrs", []))


def children(inner):
    """Fields, variants, trait items and impls of a struct, enum, union or trait."""
    out = list(inner.get("impls", [])) + list(inner.get("variants", []))
    out += list(inner.get("items", [])) + list(inner.get("implementations", []))
    kind = inner.get("kind")
    if isinstance(kind, dict):
        plain = kind.get("plain") or {}
        out += [f for f in plain.get("fields", []) if f is not None]
        tup = kind.get("tuple")
        if isinstance(tup, list):
            out += [f for f in tup if f is not None]
        struct_variant = kind.get("struct") or {}
        out += list(struct_variant.get("fields", []))
    if "fields" in inner and isinstance(inner["fields"], list):
        out += [f for f in inner["fields"] if f is not None]
    return out


found = set()
walk(data["root"], set(), found)
for name in sorted(found):
    print(name)
