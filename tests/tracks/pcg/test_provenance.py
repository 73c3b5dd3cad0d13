"""Provenance: the classifier named with the SHA-256 of its weights and its measured caveat, the physics' figures."""

from __future__ import annotations

import hashlib
from pathlib import Path

from podium.tracks.pcg.classifiers import ClassifierSpec
from podium.tracks.pcg.classifiers.embedded import WEIGHTS_PATH, weights_identity
from podium.tracks.pcg.provenance import classifier_identity, classifier_provenance, run_provenance


def test_the_embedded_classifier_is_named_by_its_weights_with_the_caveat_and_figures() -> None:
    record = classifier_provenance(ClassifierSpec("embedded"))
    digest = hashlib.sha256(WEIGHTS_PATH.read_bytes()).hexdigest()
    assert record.identity == f"sha256:{digest}"
    assert weights_identity().endswith(digest[:12])  # the identity the ledgers use is its prefix
    assert record.warn
    assert "only approximates the official ViT" in record.caveat
    assert "Spearman 0.6" in record.caveat and "Pearson 0.29" in record.caveat and "1.0" in record.caveat


def test_onnx_files_and_local_model_folders_are_hashed_hub_ids_named(tmp_path: Path) -> None:
    model = tmp_path / "m.onnx"
    model.write_bytes(b"onnx bytes")
    assert classifier_identity(f"onnx:{model}") == "sha256:" + hashlib.sha256(b"onnx bytes").hexdigest()
    folder = tmp_path / "vit"
    folder.mkdir()
    (folder / "config.json").write_text("{}")  # not a weights file: left out of the digest
    (folder / "b.safetensors").write_bytes(b"B")
    (folder / "a.safetensors").write_bytes(b"A")
    assert classifier_identity(f"hf:{folder}") == "sha256:" + hashlib.sha256(b"AB").hexdigest()
    assert classifier_identity("hf:org/model") == "hf:org/model (hub model; weights not hashed)"
    assert not classifier_provenance(ClassifierSpec(f"onnx:{model}")).warn


def test_files_podium_did_not_make_are_said_to_be_supplied_only_where_there_are_some() -> None:
    made = run_provenance(2023, ClassifierSpec("embedded"), simulated=True)
    assert made.edition == 2023 and "Box2D" in made.physics and "150/150" in made.physics_agreement
    supplied = run_provenance(2024, None, simulated=False)
    assert supplied.classifier.spec == "supplied" and supplied.classifier.warn
    assert "not simulated by podium" in supplied.physics and supplied.physics_agreement == ""
    absent = run_provenance(2024, None, simulated=False, found=frozenset())  # a run stopped before either stage
    assert absent.classifier.spec == "none" and "classified nothing" in absent.classifier.caveat
    assert absent.physics.startswith("none: podium simulated nothing") and "supplied" not in absent.physics


def test_the_report_names_the_model_server_and_edition_that_made_the_responses(tmp_path: Path) -> None:
    from podium.tracks.pcg.run_plan import describe_generation, generation_facts, write_plan

    facts = {"edition": "2024", "edition_reason": "the program imports chatgpt4pcg", "model": "openai:gemma3-270m",
             "server": "http://127.0.0.1:8000/v1"}  # fmt: skip
    for team in ("cot", "ibmgpt"):
        write_plan(tmp_path / f"{team}_raw_2026.log", team, ["A"], 2, facts)
    write_plan(tmp_path / "old_raw_2026.log", "old", ["A"], 2)  # a plan written before plans named these
    assert describe_generation(generation_facts(tmp_path, "m/")) == (
        "model openai:gemma3-270m on server http://127.0.0.1:8000/v1, edition 2024 (the program imports "
        "chatgpt4pcg): m/cot, m/ibmgpt",
    )


def test_each_teams_latest_program_environment_is_read_and_a_broken_record_skipped(tmp_path: Path) -> None:
    import json

    from podium.tracks.pcg.provenance import program_environments
    from podium.tracks.pcg.report import _programs

    logs = tmp_path / "logs"
    logs.mkdir()

    def record(name: str, team: str, installed: list[str], error: str | None = None) -> None:
        environment = {"installed": installed, "key": "abc123", "python": "3.11.2 cpython-311-x86_64-linux-gnu"}
        data = {"team": team, "digest": "sha256:" + "f" * 64, "entry": "tot/tot.py", "error": error,
                "environment": None if error else environment}  # fmt: skip
        (logs / name).write_text(json.dumps(data))

    record("team_a_raw_2026_01_01_10_00_00_.environment.json", "team_a", ["numpy==1.26.3"])
    record("team_a_raw_2026_01_02_10_00_00_.environment.json", "team_a", ["numpy==1.26.4"])  # the rerun
    record("team_b_raw_2026_01_01_10_00_00_.environment.json", "team_b", [], "requirement nope cannot be installed")
    (logs / "team_c_raw_2026_01_01_10_00_00_.environment.json").write_text("{half a rec")
    found = program_environments(logs, "qwen/")
    assert [(p.team, p.installed, p.error) for p in found] == [
        ("qwen/team_a", ("numpy==1.26.4",), None),
        ("qwen/team_b", (), "requirement nope cannot be installed"),
    ]
    html = "".join(_programs(run_provenance(2025, None, simulated=False, programs=tuple(found))))
    assert "<dt>programs</dt>" in html and "numpy==1.26.4" in html and "abc123" in html
    assert "class='bad'>requirement nope cannot be installed" in html
    assert _programs(run_provenance(2025, None, simulated=False)) == []
