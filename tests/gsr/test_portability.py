"""The measure where the system has no fcntl (Windows; simulated by hiding the module): `import gsr` and
GSR.evaluate work, with the numbers they give anywhere else."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from gsr.evaluate import GSR
from gsr.lexicon import GenderLexicon

ROOT = Path(__file__).resolve().parents[2]
WORDS = {"man": -0.2, "woman": 0.3, "nurse": 0.25, "tools": -0.3, "care": 0.1, "electrician": -0.1}
WITHOUT_FCNTL = """
import sys
sys.modules["fcntl"] = None  # as on Windows: importing it fails
import json
from gsr.evaluate import GSR
from gsr.lexicon import GenderLexicon
report = GSR(GenderLexicon.from_mapping(json.loads(sys.argv[1])), random_seed=1).evaluate(*sys.argv[2:])
print(json.dumps([report.to_dict(), sys.modules.get("fcntl") is not None]))
"""


def _tiny_files(folder: Path) -> list[str]:
    docs = {f"d{i}": ("the man fixed tools" if i % 2 else "the woman gave care") for i in range(12)}
    files = {
        "run.txt": "".join(f"q{q} Q0 d{(i + q) % 12} {i + 1} {10 - i} x\n" for q in (1, 2, 3) for i in range(6)),
        "topics.tsv": "q1\telectrician\nq2\tnurse\nq3\twoman\n",
        "docs.jsonl": "".join(json.dumps({"id": k, "text": v}) + "\n" for k, v in docs.items()),
        "qrels.txt": "q1 0 d1 1\nq2 0 d2 1\nq3 0 d4 1\n",
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return [str(folder / name) for name in files]


def test_the_measure_imports_and_evaluates_without_fcntl(tmp_path):
    paths = _tiny_files(tmp_path)
    env = {"GSR_CACHE": str(tmp_path / "cache"), "PATH": "", "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_FCNTL, json.dumps(WORDS), *paths],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    measured, fcntl_loaded = json.loads(done.stdout)
    assert not fcntl_loaded  # nothing got it some other way
    expected = GSR(GenderLexicon.from_mapping(WORDS), random_seed=1).evaluate(*paths).to_dict()
    assert measured == json.loads(json.dumps(expected)) and measured["gsr"] > 0
    # the cache cannot be locked there: said once, in one line, not once per lock
    assert done.stderr.count("no file locks") == 1, done.stderr
