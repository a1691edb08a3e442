"""A strict reader of the Prometheus text exposition format (version 0.0.4), as node_exporter's
textfile collector parses it: HELP and TYPE once per family and before its samples, a family's
samples together, metric and label names by the format's grammar, label values with only the
three escapes, values as Go's ParseFloat takes them, no label set twice, a final newline.
parse(text) returns {name: {"type", "help", "samples": [(labels dict, value)]}} or raises
ValueError naming the line."""
import re

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
TYPES = {"counter", "gauge", "histogram", "summary", "untyped"}


def _labels(text, pos, where):
    labels = {}
    if pos >= len(text) or text[pos] != "{":
        return labels, pos
    pos += 1
    while True:
        if text[pos] == "}":
            return labels, pos + 1
        m = LABEL.match(text, pos)
        if not m or text[m.end():m.end() + 2] != '="':
            raise ValueError(f"{where}: bad label at column {pos + 1}")
        name, pos, value = m.group(0), m.end() + 2, []
        while text[pos] != '"':
            if text[pos] == "\\":
                esc = text[pos + 1]
                if esc not in '\\"n':
                    raise ValueError(f"{where}: bad escape \\{esc} in label {name}")
                value.append("\n" if esc == "n" else esc)
                pos += 2
            elif text[pos] == "\n":
                raise ValueError(f"{where}: newline in label {name}")
            else:
                value.append(text[pos])
                pos += 1
        if name in labels:
            raise ValueError(f"{where}: label {name} twice")
        labels[name] = "".join(value)
        pos += 1
        if text[pos] == ",":
            pos += 1
        elif text[pos] != "}":
            raise ValueError(f"{where}: expected , or }} after label {name}")


def _value(text, where):
    if text in ("NaN", "+Inf", "-Inf", "Inf"):
        return float(text.replace("Inf", "inf"))
    if not re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", text):
        raise ValueError(f"{where}: bad value {text!r}")
    return float(text)


def parse(text):
    if text and not text.endswith("\n"):
        raise ValueError("the last line does not end in a newline")
    families, done, current = {}, set(), None
    for number, line in enumerate(text.splitlines(), 1):
        where = f"line {number}"
        if line.startswith("#"):
            parts = line.split(None, 3)
            if len(parts) >= 3 and parts[1] in ("HELP", "TYPE"):
                name = parts[2]
                if not NAME.fullmatch(name):
                    raise ValueError(f"{where}: bad metric name {name!r}")
                fam = families.setdefault(name, {"type": None, "help": None, "samples": []})
                key = parts[1].lower()
                if fam[key] is not None or fam["samples"]:
                    raise ValueError(f"{where}: {parts[1]} of {name} twice or after its samples")
                fam[key] = parts[3] if len(parts) > 3 else ""
                if key == "type" and fam["type"] not in TYPES:
                    raise ValueError(f"{where}: unknown type {fam['type']!r}")
            continue
        if not line.strip():
            continue
        m = NAME.match(line)
        if not m:
            raise ValueError(f"{where}: no metric name")
        name = m.group(0)
        labels, pos = _labels(line, m.end(), where)
        rest = line[pos:].split()
        if not 1 <= len(rest) <= 2 or line[pos:pos + 1] != " ":
            raise ValueError(f"{where}: expected ' value [timestamp]'")
        value = _value(rest[0], where)
        if name != current:
            if name in done:
                raise ValueError(f"{where}: samples of {name} are not together")
            if current is not None:
                done.add(current)
            current = name
        fam = families.setdefault(name, {"type": None, "help": None, "samples": []})
        if any(l == labels for l, _ in fam["samples"]):
            raise ValueError(f"{where}: {name} with the same labels twice")
        fam["samples"].append((labels, value))
    return families
