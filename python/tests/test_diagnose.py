"""tala.diagnose: the Python twin of `tala diagnose` (issue 57), on the example app's seeded
faults."""

import os

import pytest

import tala

SOURCE = os.environ.get("TALA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
GOLDEN = os.path.join(SOURCE, "examples", "data", "golden_faults.jsonl")
DOCS = os.path.join(SOURCE, "examples", "data", "knowledge_base.jsonl")
APP = os.path.join(SOURCE, "examples", "rag_app", "rag_app.py")


def test_the_seeded_causes_come_back_as_the_cli_finds_them(tmp_path):
    found = tala.diagnose(GOLDEN, target=f"exec:/usr/bin/python3 {APP} jsonl --faults {GOLDEN}",
                          docs=DOCS, out_dir=tmp_path / "d", max_in_flight=4)
    assert found.causes["retriever"] >= 15
    assert found.causes["parametric"] >= 15
    assert found.causes["ranking"] >= 15
    assert sum(found.causes.values()) == found.report["experimented"] == len(found.rows)
    assert "causes:" in str(found)
    assert (tmp_path / "d" / "diagnose.json").exists()
    planned = tala.diagnose(GOLDEN, target="exec:/bin/false", dry_run=True,
                            out_dir=tmp_path / "e")
    assert planned.report["dry_run"]["target_first"] == 60
    with pytest.raises(TypeError, match="unknown options"):
        tala.diagnose(GOLDEN, target="exec:/bin/false", max_in_flite=3)
    with pytest.raises(tala.InvalidArgumentError):
        tala.diagnose(GOLDEN, target="exec:/bin/false", conditions=["sideways"],
                      out_dir=tmp_path / "f")
