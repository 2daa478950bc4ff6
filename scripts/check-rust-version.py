#!/usr/bin/env python3
"""Fails when Cargo.toml's `rust-version` is older than the `rust-version` of a locked package:
the declared minimum must build the lock. Toolchain downloads are not reachable here, so the
metadata is compared instead of installing an old compiler."""
import json
import subprocess
import sys


def version(text):
    return tuple(int(part) for part in text.split(".")[:3]) + (0,) * (3 - len(text.split(".")[:3]))


metadata = json.loads(
    subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--locked"], check=True, capture_output=True, text=True
    ).stdout
)
root = next(p for p in metadata["packages"] if p["id"] == metadata["resolve"]["root"])
declared = root.get("rust_version")
if not declared:
    sys.exit("check-rust-version: Cargo.toml declares no `rust-version`")
newer = sorted(
    ((version(p["rust_version"]), p["name"], p["version"], p["rust_version"])
     for p in metadata["packages"]
     if p.get("rust_version") and p["id"] != root["id"] and version(p["rust_version"]) > version(declared)),
    reverse=True,
)
if newer:
    needs = ", ".join(f"{name} {ver} needs {rust}" for _, name, ver, rust in newer[:5])
    sys.exit(f"check-rust-version: Cargo.toml says rust-version = \"{declared}\", but the lock needs more: {needs}")
print(f"check-rust-version: rust-version {declared} covers every locked package")
