"""The sources list, docs/sources.yml, read in one place: by the docs'
site generator (docs/generators/site.py) and the inventory checks
(scripts/tests/inventory.py). Needs PyYAML (Debian's python3-yaml, which
mkdocs depends on too); the step model (steps.py) does not."""

import os
import re

import yaml

from labhost.steps import ROOT

DAY = re.compile(r"\b(\d{1,2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* (\d{4})\b")


def sources(root=None):
    """The entries of docs/sources.yml, in order, as dicts."""
    with open(os.path.join(root or ROOT, "docs", "sources.yml"), encoding="utf-8") as f:
        return yaml.safe_load(f)


def short_date(entry):
    """'22 Feb 2012' out of an entry's date, or the date as written."""
    m = DAY.search(entry.get("date", ""))
    return "%s %s %s" % (m.group(1), m.group(2), m.group(3)) if m else entry.get("date", "")


def who(entry):
    """The author without the mail address."""
    return re.sub(r"\s*<[^>]*>", "", entry.get("author", "")).strip()
