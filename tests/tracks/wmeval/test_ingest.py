"""Ingest: GT strips, the official submission layout, and every kind of file that is not a clean match."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from sqlalchemy import select

from podium.core.errors import ConflictError, InputError
from podium.core.execution.executor import SerialExecutor
from podium.tracks.wmeval.annotate import item_opened, record_score
from podium.tracks.wmeval.assign import AssignOptions, assign
from podium.tracks.wmeval.ingest import ingest_gt, ingest_team, media_root
from podium.tracks.wmeval.media import probe
from podium.tracks.wmeval.schema import gt, item_times, items, scores, teams, videos
from podium.tracks.wmeval.store import ACCOUNTS, add_account, audit_entries
from podium.tracks.wmeval.submission_folders import scan_team
from tests.processes import descendants

from .conftest import SIZE, Env, make_gt, make_team


def test_gt_views_become_one_strip_of_three_equal_height_views(env: Env) -> None:
    root = media_root(env.engine, env.media)
    report = ingest_gt(env.engine, root, make_gt(env.tmp / "gt", {"task1": 2}), SerialExecutor(), env.clock, 96)
    assert (report.stored, report.playable, report.issues) == (2, 2, ())
    with env.engine.connect() as db:
        rows = db.execute(select(gt)).all()
    strip = probe(root / rows[0].video_path)
    width = round(SIZE[0] * 96 / SIZE[1])
    assert (strip.codec, strip.height, strip.width) == ("h264", 96, 3 * width)
    assert (root / rows[0].last_frame_path).read_bytes().startswith(b"\x89PNG")
    assert (root / "gt/task1/episode_0/cam_high.mp4").exists()  # originals kept
    again = ingest_gt(env.engine, root, env.tmp / "gt", SerialExecutor(), env.clock, 96)
    assert again.stored == 0  # ingesting again keeps what is there


@pytest.mark.parametrize(
    ("damage", "named"),
    [
        (
            lambda gt: (gt / "task2/videos/cam_left_wrist/episode_1.mp4").unlink(),
            "task2/episode_1: no cam_left_wrist view",
        ),
        (lambda gt: shutil.rmtree(gt / "task2/videos/cam_high"), "task2/videos/cam_high: missing"),
        (lambda gt: (gt / "extras").mkdir(), "extras: not a task<N> folder"),
        (lambda gt: (gt / "task2/videos/cam_high/episode_1.mkv").write_text("x"), "episode_1.mkv: not episode_<i>.mp4"),
        (lambda gt: (gt / "task3/videos/cam_high").mkdir(parents=True), "task3: no episode"),
        (lambda gt: (gt / "task2/videos/cam_high/episode_0.mp4").write_bytes(b"not a video"), "cannot be composed"),
    ],
)
def test_a_gt_set_that_breaks_the_layout_is_refused_whole(env: Env, damage, named: str) -> None:  # type: ignore[no-untyped-def]
    folder = make_gt(env.tmp / "gt", {"task1": 2, "task2": 2})
    (folder / "task1/videos/cam_high/.DS_Store").write_text("hidden: skipped")
    damage(folder)
    root = media_root(env.engine, env.media)
    with pytest.raises(InputError, match="nothing stored") as refused:
        ingest_gt(env.engine, root, folder, SerialExecutor(), env.clock, 48)
    assert named in refused.value.message and refused.value.fix
    with env.engine.connect() as db:
        assert db.execute(select(gt)).all() == []  # not task1 alone: a competition of the tasks that were complete
    assert not (root / "gt").exists() and not (root / "staging").exists()


def test_the_gt_set_is_fixed_once_a_team_is_in(env: Env) -> None:
    root = media_root(env.engine, env.media)
    folder = make_gt(env.tmp / "gt", {"task1": 1})
    assert ingest_gt(env.engine, root, folder, SerialExecutor(), env.clock, 48).stored == 1
    make_gt(folder, {"task1": 2})  # one more episode, before any team: taken
    assert ingest_gt(env.engine, root, folder, SerialExecutor(), env.clock, 48).stored == 1
    ingest_team(env.engine, root, "alpha", make_team(env.tmp / "t", {"task1/episode_0.mp4": "h264"}),
                SerialExecutor(), env.clock)  # fmt: skip
    make_gt(folder, {"task1": 3})
    with pytest.raises(ConflictError, match="the GT set is fixed"):
        ingest_gt(env.engine, root, folder, SerialExecutor(), env.clock, 48)
    shutil.rmtree(folder / "task1")
    make_gt(folder, {"task1": 1})
    with pytest.raises(ConflictError, match="lacks episodes ingested before"):
        ingest_gt(env.engine, root, folder, SerialExecutor(), env.clock, 48)


def test_a_team_is_matched_by_task_and_episode_and_every_odd_file_reported(env: Env) -> None:
    root = media_root(env.engine, env.media)
    ingest_gt(env.engine, root, make_gt(env.tmp / "gt", {"task1": 3, "task2": 1}), SerialExecutor(), env.clock, 48)
    team = make_team(
        env.tmp / "team",
        {
            "task1/episode_0.mp4": "h264",
            "task1/concat_episode_0.mp4": "h264",
            "task1/episode_1.mp4": "mp4v",
            "task1/episode_2.mp4": "corrupt",
            "task1/episode_9.mp4": "h264",
            "task3/episode_0.mp4": "h264",
            "task1/notes.txt": "hello",
            "task1/.DS_Store": "hidden: skipped",
        },
    )
    report = ingest_team(env.engine, root, "alpha", team, SerialExecutor(), env.clock)
    assert (report.stored, report.playable) == (3, 2)
    kinds = sorted((i.kind, i.path) for i in report.issues)
    assert kinds == [
        ("ignored", "evaluator_test/task1/concat_episode_0.mp4"),
        ("missing", "task2/episode_0"),
        ("undecodable", "evaluator_test/task1/episode_2.mp4"),
        ("unknown", "evaluator_test/task1/episode_9.mp4"),
        ("unknown", "evaluator_test/task1/notes.txt"),
        ("unknown", "evaluator_test/task3/episode_0.mp4"),
    ]
    with env.engine.connect() as db:
        rows = {r.episode: r for r in db.execute(select(videos))}
    assert "2 playable (2 transcoded)" in report.lines()[0]
    assert json.loads(rows["episode_0"].probe_json)["method"] == "transcoded"  # every one is made in the profile
    mp4v = rows["episode_1"]
    assert json.loads(mp4v.probe_json)["method"] == "transcoded"
    assert json.loads(mp4v.probe_json)["original"]["codec"] == "mpeg4"
    assert probe(root / mp4v.video_path).codec == "h264"  # the OpenCV file plays after ingest
    copy = json.loads(mp4v.probe_json)["output"]
    assert (copy["frames"], copy["fps"]) == (22, 30)  # its 0.75 s at the served 30 fps: frames repeated, none lost
    head = (root / mp4v.video_path).read_bytes()
    assert head.index(b"moov") < head.index(b"mdat")  # faststart: playable before the whole file arrives
    assert (root / mp4v.original_path).exists()
    assert "alpha" not in mp4v.video_path  # media folders are random, never the team's name
    corrupt = rows["episode_2"]
    assert (corrupt.playable, corrupt.video_path) == (False, None)
    assert "cannot decode" in corrupt.reason
    assert json.loads(corrupt.probe_json)["method"] is None
    with pytest.raises(ConflictError):
        ingest_team(env.engine, root, "alpha", team, SerialExecutor(), env.clock)


def test_two_files_for_one_episode_reject_the_submission(env: Env) -> None:
    team = make_team(env.tmp / "dup", {"task1/episode_1.mp4": "h264", "task1/episode_01.mp4": "h264"})
    with pytest.raises(InputError, match="duplicate"):
        scan_team(team, [("task1", "episode_1")])


def test_a_folder_without_evaluator_test_is_refused(env: Env) -> None:
    (env.tmp / "empty").mkdir()
    with pytest.raises(InputError, match="evaluator_test"):
        scan_team(env.tmp / "empty", [("task1", "episode_0")])


@pytest.mark.parametrize(
    ("files", "named"),
    [
        ({"outputs/task1/episode_0.mp4": "h264"}, "evaluator_test/outputs: not a task<N> folder"),
        ({"task1/more/episode_0.mp4": "h264"}, "one level too deep"),
        ({"task1/notes.txt": "nothing but notes"}, "no video the GT knows"),
    ],
)
def test_a_submission_that_fits_no_place_of_the_layout_is_refused(env: Env, files: dict[str, str], named: str) -> None:
    root = media_root(env.engine, env.media)
    ingest_gt(env.engine, root, make_gt(env.tmp / "gt", {"task1": 1}), SerialExecutor(), env.clock, 48)
    with pytest.raises(InputError, match="nothing stored") as refused:
        ingest_team(env.engine, root, "alpha", make_team(env.tmp / "team", files), SerialExecutor(), env.clock)
    assert named in refused.value.message
    with env.engine.connect() as db:  # before, a team with "0 video(s) stored" was registered for ever
        assert db.execute(select(teams)).all() == []


ANSWERS = select(items.c.key, scores.c.score).join(scores, scores.c.item_id == items.c.id)


def test_a_replacement_changes_only_the_videos_that_changed_and_keeps_every_other_answer(env: Env) -> None:
    """Replacing one video dropped all 15 of a team's answers, and crashed once an item had been opened."""
    root = media_root(env.engine, env.media)
    ingest_gt(env.engine, root, make_gt(env.tmp / "gt", {"task1": 3}), SerialExecutor(), env.clock, 48)
    first = make_team(env.tmp / "v1", {"task1/episode_0.mp4": "h264", "task1/episode_1.mp4": "mp4v"})
    ingest_team(env.engine, root, "alpha", first, SerialExecutor(), env.clock)
    with pytest.raises(ConflictError, match="ingested already") as refused:
        ingest_team(env.engine, root, "alpha", first, SerialExecutor(), env.clock)
    assert refused.value.fix == "re-ingest it with --replace"
    # the same two videos and a third: the two are kept as they are, the third is added
    second = env.tmp / "v2"  # the same files (copied: an encoder need not give the same bytes twice) and a third
    shutil.copytree(first, second)
    shutil.copy(make_team(env.tmp / "new", {"task1/episode_2.mp4": "h264"}) / "evaluator_test/task1/episode_2.mp4",
                second / "evaluator_test/task1/episode_2.mp4")  # fmt: skip
    report = ingest_team(env.engine, root, "alpha", second, SerialExecutor(), env.clock, replace=True)
    assert (report.stored, report.replaced, report.kept) == (3, 0, 2)
    add_account(env.engine, env.clock, "ann", "annotator")
    assign(env.engine, env.clock, AssignOptions(annotators_per_task=1, gold=0))
    with env.engine.connect() as db:
        ann = ACCOUNTS.by_name(db, "ann")
        keys = dict(
            db.execute(select(videos.c.episode, items.c.key).join(items, items.c.video_id == videos.c.id)).all()
        )
    for episode, score in (("episode_0", 2), ("episode_1", 3)):
        item_opened(env.engine, env.clock, ann, keys[episode])  # opened: its times row once broke the replace
        record_score(env.engine, env.clock, ann, keys[episode], score)
    item_opened(env.engine, env.clock, ann, keys["episode_2"])

    # one video sent again, changed: only its answer would go, and only when forced
    third = env.tmp / "v3"
    shutil.copytree(second, third)
    shutil.copy(make_team(env.tmp / "other", {"task1/episode_9.mp4": "h264"}) / "evaluator_test/task1/episode_9.mp4",
                third / "evaluator_test/task1/episode_1.mp4")  # fmt: skip
    with pytest.raises(ConflictError, match="replacing 1 video\\(s\\) would drop 1 answered item"):
        ingest_team(env.engine, root, "alpha", third, SerialExecutor(), env.clock, replace=True)
    only = ingest_team(env.engine, root, "alpha", third, SerialExecutor(), env.clock, replace=True, force=True,
                       only=["task1/episode_1"])  # fmt: skip
    assert (only.stored, only.replaced) == (1, 1)
    with env.engine.connect() as db:
        answered = dict(
            db.execute(select(items.c.key, scores.c.score).join(scores, scores.c.item_id == items.c.id)).all()
        )
        owners = dict(db.execute(select(items.c.key, items.c.annotator_id)).all())
        dropped = [json.loads(e.payload) for e in audit_entries(db) if e.kind == "videos_replaced"]
        assert len(db.execute(select(videos)).all()) == 3 and db.execute(select(item_times)).all()
    assert answered == {keys["episode_0"]: 2}  # episode_1's answer went; episode_0's stayed
    assert owners[keys["episode_1"]] == ann.id  # its item came back, unanswered, to the same annotator
    gone = [{"item": keys["episode_1"], "score": 3, "cant_judge": None}]
    assert dropped[-1] == {"team": "alpha", "videos": ["task1/episode_1"], "answers_dropped": gone}
    assert assign(env.engine, env.clock, AssignOptions(annotators_per_task=1, gold=0)).items_added == 0
    assert not (root / "staging").exists() or not any((root / "staging").iterdir())  # nothing left staged

    # the whole team again with the first folder: episode_2 is no longer sent, its item goes; the rest stays
    used = {p.name for p in (root / "teams").iterdir()}
    whole = ingest_team(env.engine, root, "alpha", first, SerialExecutor(), env.clock, replace=True, force=True)
    assert (whole.stored, whole.kept) == (2, 1)  # episode_0 kept; episode_1 differs from v1's again: replaced
    with env.engine.connect() as db:
        assert dict(db.execute(ANSWERS).all()) == {keys["episode_0"]: 2}
        assert keys["episode_2"] not in set(db.execute(select(items.c.key)).scalars())
    assert len({p.name for p in (root / "teams").iterdir()}) <= len(used) + 1  # folders no video uses are gone


def test_an_ingest_killed_while_transcoding_leaves_no_team_and_runs_again(env: Env) -> None:
    root = media_root(env.engine, env.media)
    ingest_gt(env.engine, root, make_gt(env.tmp / "gt", {"task1": 1}), SerialExecutor(), env.clock, 48)
    team = make_team(env.tmp / "team", {"task1/episode_0.mp4": "h264"})

    class Killed(SerialExecutor):
        def map_unordered(self, function, jobs):  # type: ignore[no-untyped-def]
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ingest_team(env.engine, root, "alpha", team, Killed(), env.clock)
    with env.engine.connect() as db:
        assert db.execute(select(teams)).all() == []
    assert ingest_team(env.engine, root, "alpha", team, SerialExecutor(), env.clock).playable == 1


def _running(pid: int) -> bool:
    """Whether ``pid`` still runs: a zombie has ended (where a sandbox test made pytest the subreaper, the
    orphaned pool ends as pytest's zombies, which nobody here waits for)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_killed_ingest_leaves_no_process_and_its_rerun_makes_only_what_is_missing(env: Env) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    db = f"sqlite:///{env.tmp / 'wm.sqlite3'}"
    podium = [sys.executable, "-m", "podium", "wmeval"]
    subprocess.run([*podium, "ingest-gt", str(make_gt(env.tmp / "gt", {"task1": 8})), "--media", str(env.media),
                    "--height", "48", "--db", db], check=True, capture_output=True)  # fmt: skip
    team = make_team(env.tmp / "team", {f"task1/episode_{i}.mp4": "mp4v" for i in range(8)})
    command = [*podium, "ingest-team", "alpha", str(team), "--workers", "2", "--db", db]
    running = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline, workers = time.monotonic() + 60, set()
    while time.monotonic() < deadline and running.poll() is None:
        workers |= set(descendants(running.pid))
        if len(list(env.media.glob("staging/*/task1/*/result.json"))) >= 2:
            break
        time.sleep(0.01)
    assert running.poll() is None, "the ingest ended before it could be killed"
    workers |= set(descendants(running.pid))
    os.kill(running.pid, signal.SIGKILL)
    running.wait()
    made = len(list(env.media.glob("staging/*/task1/*/result.json")))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_running(pid) for pid in workers):
        time.sleep(0.05)
    assert workers and not [pid for pid in workers if _running(pid)]  # no worker left behind
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    assert f"resumed: {made} made by an interrupted run, reused" in done.stdout, done.stdout
    assert "alpha: 8 video(s) stored, 8 playable" in done.stdout
    assert not (env.media / "staging").exists()
