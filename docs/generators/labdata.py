"""The lab's own descriptions, read in one place: the steps (steps/NN-name/
step.conf) and the sources list (docs/sources.yml); a step's expected
file is scripts/results.py's to read. Used by the
site generator (site.py) and by the inventory checks (scripts/inventory.py).
Needs PyYAML (Debian's python3-yaml, which mkdocs depends on too)."""

import os
import re

import yaml

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
STEP_DIR = re.compile(r"^(\d\d)-[a-z0-9][a-z0-9-]*$")
DAY = re.compile(r"\b(\d{1,2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* (\d{4})\b")


class Step:
    def __init__(self, root, slug):
        self.slug = slug
        self.number = int(slug[:2])
        self.dir = os.path.join(root, "steps", slug)
        self.conf = {}
        path = os.path.join(self.dir, "step.conf")
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if line.startswith("#") or ":" not in line:
                        continue
                    k, _, v = line.partition(":")
                    self.conf[k.strip()] = v.strip()
        self.title = self.conf.get("title", "")
        self.history = self.conf.get("history", "").split()


def steps():
    names = sorted(n for n in os.listdir(os.path.join(ROOT, "steps")) if STEP_DIR.match(n)
                   and os.path.isdir(os.path.join(ROOT, "steps", n)))
    return [Step(ROOT, n) for n in names]


def sources():
    """The entries of docs/sources.yml, in order, as dicts."""
    with open(os.path.join(ROOT, "docs", "sources.yml"), encoding="utf-8") as f:
        return yaml.safe_load(f)


def short_date(entry):
    """'22 Feb 2012' out of an entry's date, or the date as written."""
    m = DAY.search(entry.get("date", ""))
    return "%s %s %s" % (m.group(1), m.group(2), m.group(3)) if m else entry.get("date", "")


def who(entry):
    """The author without the mail address."""
    return re.sub(r"\s*<[^>]*>", "", entry.get("author", "")).strip()
