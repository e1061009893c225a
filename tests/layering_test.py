"""The include directions of docs/architecture.md, checked: every `#include` of a folder in src/
names a folder (or a public header's layer) that the table lets it include, each folder's
README.md repeats its line of the table, src/ holds only folders, and the arithmetic layers
include no network, database or JSON library. Usage: layering_test.py SOURCE_DIR"""

import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "."
doc = open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8").read()
problems = []


def names(cell):
    return {n.strip().strip("`") for n in cell.split(",") if n.strip() and "nothing" not in n}


allowed = {}  # folder -> folders it may include
for folder, _, may in re.findall(r"^\| `(\w+)` \| (.+?) \| (.+?) \|$", doc, re.M):
    allowed[folder] = names(may)
layer_of = {}  # public header -> layer
for headers, layer in re.findall(r"^\| (`[\w.]+\.h`(?:, `[\w.]+\.h`)*) \| (\w+) \|$", doc, re.M):
    for h in names(headers):
        layer_of[h] = layer
if len(allowed) < 10 or len(layer_of) < 10:
    sys.exit(f"docs/architecture.md: the folder or header table was not found "
             f"({len(allowed)} folders, {len(layer_of)} headers)")

src = os.path.join(root, "src")
for entry in sorted(os.listdir(src)):
    path = os.path.join(src, entry)
    if os.path.isfile(path) and entry != "CMakeLists.txt":
        problems.append(f"src/{entry}: src/ holds only folders")
    elif os.path.isdir(path) and entry not in allowed:
        problems.append(f"src/{entry}/: not in the folder table of docs/architecture.md")

for folder, may in sorted(allowed.items()):
    readme = os.path.join(src, folder, "README.md")
    try:
        text = open(readme, encoding="utf-8").read()
    except OSError:
        problems.append(f"src/{folder}/README.md: missing (what the folder owns, what it may "
                        f"include)")
        continue
    said = re.search(r"^May include: (.+)$", text, re.M)
    if not said or names(said.group(1)) != may:
        problems.append(f"src/{folder}/README.md: its 'May include:' line must list "
                        f"{', '.join(sorted(may)) or '(nothing else)'}, as docs/architecture.md")

libraries = re.compile(r'#include *[<"](curl/|sqlite3|httplib|simdjson|nlohmann|CLI/)')
for folder, may in sorted(allowed.items()):
    for dirpath, _, files in os.walk(os.path.join(src, folder)):
        for name in sorted(files):
            if not name.endswith((".h", ".cc")):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), root)
            for number, line in enumerate(open(os.path.join(dirpath, name), encoding="utf-8",
                                               errors="replace"), 1):
                if folder in ("core", "metrics", "analysis") and libraries.match(line):
                    problems.append(f"{rel}:{number}: {folder} includes no network, database "
                                    f"or JSON library: {line.strip()}")
                m = re.match(r'#include "([^"]+)"', line)
                if not m or "/" not in m.group(1):
                    continue
                target, rest = m.group(1).split("/", 1)
                if target == "tala":
                    layer = layer_of.get(rest)
                    if layer is None:
                        problems.append(f"{rel}:{number}: include/tala/{rest} is not in the "
                                        f"header table of docs/architecture.md")
                        continue
                    target = layer
                if target != folder and target in allowed and target not in may:
                    problems.append(f"{rel}:{number}: {folder} may not include {target} "
                                    f"({m.group(1)}); it may include "
                                    f"{', '.join(sorted(may)) or 'nothing else'}")

if problems:
    print("layering violations (docs/architecture.md):")
    print("\n".join(problems))
    sys.exit(1)
print(f"layering ok: {len(allowed)} folders, {len(layer_of)} public headers")
