#!/usr/bin/env python3
"""Generates the capture side's view of the trace schema.

The capture side writes protobuf by hand (an allocation-free encoder), so it
needs every field number. Reading them from the .proto keeps the .proto the
single source: a renumbered field changes the header, never two files by hand.

Usage: gen_field_numbers.py vprof_trace.proto out.h
"""
import re
import sys


def to_camel(name):
    return "k" + "".join(part.capitalize() for part in name.split("_"))


def main(src, dst):
    text = open(src, encoding="utf-8").read()
    version = re.search(r"//\s*vprof:format_version\s+(\d+)", text)
    if not version:
        sys.exit(f"{src}: missing '// vprof:format_version N' line")
    text = re.sub(r"//[^\n]*", "", text)
    out = [
        "// Generated from schema/vprof_trace.proto by gen_field_numbers.py.",
        "// Do not edit.",
        "#pragma once",
        "#include <cstdint>",
        "",
        "namespace vprof::schema {",
        "",
        f"inline constexpr uint32_t kFormatVersion = {version.group(1)};",
        "",
    ]
    # A flat scan is enough: messages are not nested in this schema, and a
    # `oneof` block's fields belong to the enclosing message.
    block_re = re.compile(r"\b(message|enum)\s+(\w+)\s*\{")
    pos = 0
    seen = 0
    while True:
        m = block_re.search(text, pos)
        if not m:
            break
        kind, name = m.group(1), m.group(2)
        depth, i = 1, m.end()
        while depth:
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
            i += 1
        body = text[m.end():i - 1]
        pos = i
        seen += 1
        out.append(f"namespace {name} {{")
        if kind == "message":
            for f in re.finditer(
                    r"(?:optional\s+|repeated\s+)?[\w.]+\s+(\w+)\s*=\s*(\d+)\s*;",
                    body):
                out.append(
                    f"inline constexpr uint32_t {to_camel(f.group(1))} = {f.group(2)};")
        else:
            for f in re.finditer(r"(\w+)\s*=\s*(\d+)\s*;", body):
                out.append(f"inline constexpr int32_t {f.group(1)} = {f.group(2)};")
        out.append(f"}}  // namespace {name}")
        out.append("")
    if not seen:
        sys.exit(f"{src}: no messages found")
    out.append("}  // namespace vprof::schema")
    open(dst, "w", encoding="utf-8").write("\n".join(out) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
