"""The surfaces added since the last hardening: templates beside ``.git``, workflow commands,
the git object reader, the settings' numbers, ``-k all``, the Python API.

``item`` is ``R3.<n>``, the class of defect; every class has the case that found it and
variants of our own.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import re
import zlib
from pathlib import Path

from git_store import entry_header, ref_delta, varint, whole, write_loose, write_pack
from hostile.case import HostileCase
from hostile.cases_action import JUDGMENTS, RUN, WORKSPACE, outputs_say, runner, with_runner_folder
from hostile.cases_render import DEMO, REPORT

DEMO_JUDGMENTS, DEMO_RUN = (DEMO / "judgments.jsonl").read_bytes(), (DEMO / "run.jsonl").read_bytes()
TOKEN = "ghs_secret_never_printed"  # what runner() gives as the job's token
# What actions/checkout leaves in the checkout: the token, base64-encoded with its user name.
EXTRAHEADER = base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode()
GIT_CONFIG = (
    '[core]\n\trepositoryformatversion = 0\n[http "https://github.com/"]\n'
    f"\textraheader = AUTHORIZATION: basic {EXTRAHEADER}\n"
).encode()


def _template(body: str) -> bytes:
    return ('{% extends "builtin/summary.md.j2" %}{% block verdict %}' + body + "{% endblock %}\n").encode()


def no_token_published(tmp: Path) -> None:
    """Neither the token nor its base64 in anything the action wrote."""
    published = [p for p in tmp.rglob("*") if p.is_file() and ".git" not in p.parts and p.suffix != ".j2"]
    for path in published:
        text = path.read_text(errors="replace")
        assert EXTRAHEADER[:-4] not in text and TOKEN not in text, path


def link_template_to_git_config(tmp: Path) -> None:
    with_runner_folder(tmp)
    (tmp / "summary.md.j2").symlink_to(tmp / ".git" / "config")


def _leak(name: str, *, config: bytes, files: dict[str, bytes], says: str, setup=with_runner_folder):  # type: ignore[no-untyped-def]
    return HostileCase(
        "R3.1",
        name,
        ("action",),
        files={**WORKSPACE, ".git/config": GIT_CONFIG, ".retrieval-eval.yml": config, **files},
        env=runner(),
        setup=setup,
        stdout_has=says,
        check=no_token_published,
        github=True,
        comment_has="could not answer",
    )


TOKEN_LEAKS = [
    # The review's probe: the template folder is the workspace, and a template includes .git/config.
    _leak(
        "include-git-config",
        config=b"template-dir: .\n",
        files={"summary.md.j2": _template('{% include ".git/config" %}')},
        says="inside a .git folder",
    ),
    _leak(
        "include-git-config-other-case",
        config=b"template-dir: .\n",
        files={"summary.md.j2": _template('{% include ".GIT/config" %}')},
        says="inside a .git folder",
    ),
    _leak(
        "import-git-config",
        config=b"template-dir: .\n",
        files={"summary.md.j2": _template('{% import ".git/config" as c %}')},
        says="inside a .git folder",
    ),
    _leak(
        "template-dir-is-git",
        config=b"template-dir: .git\n",
        files={".git/summary.md.j2": _template('{% include "config" %}')},
        says="inside a .git folder",
    ),
    _leak(
        "template-linked-to-git-config",
        config=b"template-dir: .\n",
        files={},
        says="leads into a .git folder",
        setup=link_template_to_git_config,
    ),
    _leak(
        "include-a-file-that-is-no-template",
        config=b"template-dir: .\n",
        files={"summary.md.j2": _template('{% include "judgments.jsonl" %}')},
        says="is not a template file",
    ),
]
TOKEN_LEAKS[-1] = dataclasses.replace(TOKEN_LEAKS[-1], check=None)

CASES: list[HostileCase] = [*TOKEN_LEAKS]


# -- R3.2: no text from a pull request becomes a workflow command ----------------------------------
# The runner reads a line (ended by \n or \r) that starts with ``::`` as a command.
INJECTED = tuple(
    f"{end}::{name}::injected" for end in "\r\n" for name in ("warning", "error", "notice", "stop-commands")
)


def _command_case(name: str, config: bytes, *, exit_code: int = 0, says: str = "") -> HostileCase:
    return HostileCase(
        "R3.2",
        name,
        ("action",),
        files={**WORKSPACE, ".retrieval-eval.yml": config},
        env=runner(),
        setup=with_runner_folder,
        exit_code=exit_code,
        stdout_has=says,
        github=True,
        comment_has="",
    )


COMMAND_CASES = [
    # The review's probe: a report path with a line break, then a command of its own.
    _command_case("report-path-line-break", b'report: "out\\n::warning::injected.json"\n', says="%0A::warning"),
    _command_case("report-path-carriage-return", b'report: "out\\r::error::injected.json"\n', says="%0D::error"),
    _command_case(
        "report-path-percent-escape",  # %0A written by the user must stay text, not become a break
        b'report: "out%0A::notice::injected.json"\n',
        says="out%250A",
    ),
    _command_case(
        "stop-commands-in-path",
        b'report: "out\\n::stop-commands::injected\\n::warning::injected.json"\n',
        says="%0A::stop-commands",
    ),
]
COMMAND_CASES = [dataclasses.replace(case, stdout_lacks=INJECTED) for case in COMMAND_CASES]
CASES += COMMAND_CASES


# -- R3.5: the git object reader reads hostile data within bounds ----------------------------------
BASE = "0" * 40  # the base commit the pull request's event names (test_hostile.pull_request_env)
BLOB = "11" * 20


def _store(*, loose: bytes | None = None, pack: list[tuple[str, bytes]] | None = None):  # type: ignore[no-untyped-def]
    def setup(tmp: Path) -> None:
        with_runner_folder(tmp)
        git_dir = tmp / ".git"
        (git_dir / "objects").mkdir(parents=True)
        (git_dir / "HEAD").write_text("ref: refs/heads/main\n")
        if loose is not None:
            folder = git_dir / "objects" / BASE[:2]
            folder.mkdir()
            (folder / BASE[2:]).write_bytes(loose)
        if pack is not None:
            write_pack(git_dir, pack)

    return setup


def refusal_reported(tmp: Path) -> None:
    assert "the checkout's git objects could not be read" in (tmp / "runner" / "summary.md").read_text()


def _git_case(name: str, setup, seconds: float = 20) -> HostileCase:  # type: ignore[no-untyped-def]
    return HostileCase(
        "R3.5",
        name,
        ("action",),
        files=WORKSPACE,
        env=runner(INPUT_BASELINE="auto"),
        setup=setup,
        exit_code=0,  # no base report: the verdict stands alone, as when the base branch has none
        check=refusal_reported,
        timeout=seconds,
        github=True,
        comment_has="PASS",
    )


_COPY_ALL = bytes([0x80 | 0x10 | 0x20, 0x00, 0x01])  # copy 256 bytes from offset 0
_COPY_64K = b"\x80"  # copy 65,536 bytes from offset 0: one byte of delta each
BASE_64K = b"x" * 0x10000
GIT_CASES = [
    # The review's probe: a reference delta whose base is itself (was a RecursionError).
    _git_case("ref-delta-on-itself", _store(pack=[(BASE, ref_delta(BASE, varint(1) + varint(1) + b"\x01x"))])),
    _git_case(
        "ref-delta-cycle-of-two",
        _store(
            pack=[(BASE, ref_delta(BLOB, varint(1) + varint(1) + b"\x01x")), (BLOB, ref_delta(BASE, b"\x01\x01\x01y"))]
        ),
    ),
    _git_case(
        "delta-declares-4-gb",
        _store(
            pack=[(BLOB, whole("blob", b"x" * 256)), (BASE, ref_delta(BLOB, varint(256) + varint(4 << 30) + _COPY_ALL))]
        ),
    ),
    _git_case(
        "delta-copies-past-its-declared-size",  # 4 KB of copies that would make 256 MB
        _store(
            pack=[
                (BLOB, whole("blob", BASE_64K)),
                (BASE, ref_delta(BLOB, varint(len(BASE_64K)) + varint(256) + _COPY_64K * 4096)),
            ]
        ),
    ),
    _git_case(
        "entry-inflates-past-its-header",
        _store(pack=[(BASE, entry_header("commit", 10) + zlib.compress(b"\0" * (8 << 20)))]),
    ),
    _git_case("entry-size-varint-100k-bytes", _store(pack=[(BASE, b"\x9f" + b"\xff" * 100_000 + b"\x00")])),
    _git_case("loose-zlib-bomb", _store(loose=zlib.compress(b"commit 10\0" + b"\0" * (8 << 20), 9))),
    _git_case("loose-declares-5-gb", _store(loose=zlib.compress(b"commit 5000000000\0tree"))),
    _git_case("loose-header-without-end", _store(loose=zlib.compress(b"commit " + b"9" * 10_000))),
]
CASES += GIT_CASES


# -- R3.6: a commit may claim any time ---------------------------------------------------------------
def _loose(git_dir: Path, kind: bytes, data: bytes) -> str:
    raw = kind + b" %d\0" % len(data) + data
    name = hashlib.sha1(raw).hexdigest()
    write_loose(git_dir, name, raw)
    return name


def base_commit_at(stamp: bytes):  # type: ignore[no-untyped-def]
    """A base commit holding the base report, whose committer claims ``stamp``; the event names it."""

    def setup(tmp: Path) -> None:
        with_runner_folder(tmp)
        git_dir = tmp / ".git"
        (git_dir / "objects").mkdir(parents=True)
        (git_dir / "HEAD").write_text("ref: refs/heads/main\n")
        blob = _loose(git_dir, b"blob", REPORT)
        inner = _loose(git_dir, b"tree", b"100644 report.json\0" + bytes.fromhex(blob))
        tree = _loose(git_dir, b"tree", b"40000 .retrieval-eval\0" + bytes.fromhex(inner))
        who = b"Base <base@example.invalid> " + stamp + b" +0000"
        commit = _loose(git_dir, b"commit", b"tree %s\nauthor %s\ncommitter %s\n\nbase\n" % (tree.encode(), who, who))
        event = {"number": 7, "pull_request": {"number": 7, "base": {"sha": commit, "ref": "main"}}}
        (tmp / "event.json").write_text(json.dumps(event))

    return setup


def _time_case(name: str, stamp: bytes) -> HostileCase:
    return HostileCase(
        "R3.6",
        name,
        ("action",),
        files={"judgments.jsonl": DEMO_JUDGMENTS, "run.jsonl": DEMO_RUN},
        env=runner(INPUT_BASELINE="auto", GITHUB_EVENT_PATH="{tmp}/event.json"),
        setup=base_commit_at(stamp),
        exit_code=0,
        check=history_charted,
        github=True,
        comment_has="PASS",
    )


def history_charted(tmp: Path) -> None:
    summary = (tmp / "runner" / "summary.md").read_text()
    assert re.search(r"The last \d+ versions? of \.retrieval-eval/report\.json on main", summary), summary


CASES += [
    _time_case("committer-far-future", b"99999999999999999"),  # the review's probe: past any year gmtime shows
    _time_case("committer-year-3-million", b"99999999999999"),
    _time_case("committer-year-10000", b"253402300800"),
    _time_case("committer-time-not-a-number", b"soon"),
    _time_case("committer-time-5000-digits", b"9" * 5000),
]


# -- R3.7: an event payload of the wrong shape reads as a payload without those fields --------------
def event_payload(payload: object, name: str = "event.json"):  # type: ignore[no-untyped-def]
    def setup(tmp: Path) -> None:
        with_runner_folder(tmp)
        (tmp / name).write_text(json.dumps(payload))

    return setup


def _event_case(name: str, payload: object, *, event: str = "pull_request") -> HostileCase:
    return HostileCase(
        "R3.7",
        name,
        ("action",),
        files=WORKSPACE,
        env=runner(GITHUB_EVENT_PATH="{tmp}/event.json", GITHUB_EVENT_NAME=event, INPUT_BASELINE="auto"),
        setup=event_payload(payload),
        exit_code=0,
        check=outputs_say("PASS"),
        github=True,
        comment_has=None,  # no pull request number can be read: nothing to comment on
    )


CASES += [
    _event_case("pull-request-a-string", {"pull_request": "7"}),  # the review's probe
    _event_case("base-a-list", {"pull_request": {"base": ["main"]}}),
    _event_case("base-sha-a-number", {"pull_request": {"number": True, "base": {"sha": 7, "ref": {"x": 1}}}}),
    _event_case("repository-a-list", {"pull_request": None, "repository": []}),
    _event_case(
        "workflow-run-pulls-a-string", {"workflow_run": {"id": 1, "pull_requests": "77"}}, event="workflow_run"
    ),
    _event_case("workflow-run-owner-a-list", {"workflow_run": {"id": 1, "head_repository": []}}, event="workflow_run"),
]


# -- R3.4: an output never replaces an input, an input's sidecar, or anything in .git ---------------
def unchanged(name: str, data: bytes):  # type: ignore[no-untyped-def]
    def check(tmp: Path) -> None:
        assert (tmp / name).read_bytes() == data, name

    return check


def _action_output(
    name: str, config: bytes, says: str, *, check, setup=with_runner_folder, extra=None, **env: str
) -> HostileCase:  # type: ignore[no-untyped-def]
    return HostileCase(
        "R3.4",
        name,
        ("action",),
        files={**WORKSPACE, ".git/config": GIT_CONFIG, ".retrieval-eval.yml": config, **(extra or {})},
        env=runner(**env),
        setup=setup,
        stdout_has=says,
        check=check,
        github=True,
        comment_has="could not answer",
    )


def link_reports_to_git(tmp: Path) -> None:
    with_runner_folder(tmp)
    (tmp / "reports").symlink_to(tmp / ".git")


def to_dev_null(name: str):  # type: ignore[no-untyped-def]
    def setup(tmp: Path) -> None:
        (tmp / name).symlink_to("/dev/null")

    return setup


def no_sidecar(name: str):  # type: ignore[no-untyped-def]
    def check(tmp: Path) -> None:
        assert not (tmp / f"{name}.meta.json").exists()

    return check


def nothing_in_git_objects(tmp: Path) -> None:
    assert not (tmp / ".git" / "objects").exists()


FLOOR = b'{"query_id":"q1","ranking":["d2","d1"]}\n'
FLOOR_META = b'{"command": "baseline", "method": "bm25"}\n'
CLI_SCORE = ("score", "-j", "judgments.jsonl", "-r", "run.jsonl")
CASES += [
    # The review's probes.
    _action_output(
        "report-over-judgments",
        b"report: judgments.jsonl\n",
        "is also an input",
        check=unchanged("judgments.jsonl", JUDGMENTS),
    ),
    _action_output(
        "report-into-git-config",
        b"report: .git/config\n",
        "inside a .git folder",
        check=unchanged(".git/config", GIT_CONFIG),
    ),
    # Ours: a file beside the report, a link into .git, another letter case.
    _action_output(
        "comment-file-over-the-run",
        b"report: x.json\n",
        "is also an input",
        check=unchanged("x.comment.md", RUN),
        extra={"x.comment.md": RUN},
        INPUT_RUN="x.comment.md",
    ),
    _action_output(
        "report-through-a-link-into-git",
        b"report: reports/HEAD\n",
        "inside a .git folder",
        check=unchanged(".git/config", GIT_CONFIG),
        setup=link_reports_to_git,
    ),
    _action_output("report-into-GIT", b"report: .GIT/hooks/pre-commit\n", "inside a .git folder", check=None),
    HostileCase(
        "R3.4",
        "score-report-over-the-floor-sidecar",  # the review's probe
        (*CLI_SCORE, "--floor", "floor.jsonl", "--report", "floor.jsonl.meta.json"),
        files={**WORKSPACE, "floor.jsonl": FLOOR, "floor.jsonl.meta.json": FLOOR_META},
        stderr_has="sidecar of the floor file",
        check=unchanged("floor.jsonl.meta.json", FLOOR_META),
    ),
    HostileCase(
        "R3.4",
        "score-report-over-the-run-sidecar",
        (*CLI_SCORE, "--report", "run.jsonl.meta.json"),
        files={**WORKSPACE, "run.jsonl.meta.json": FLOOR_META},
        stderr_has="sidecar of the run file",
        check=unchanged("run.jsonl.meta.json", FLOOR_META),
    ),
    HostileCase(
        "R3.4",
        "fuse-out-a-device",  # /dev/stdout in the review's probe; a link to a device here, to see its folder
        ("fuse", "run.jsonl", "run.jsonl", "--out", "fused"),
        files=WORKSPACE,
        setup=to_dev_null("fused"),
        exit_code=0,
        stderr_has="no sidecar beside a stream",
        check=no_sidecar("fused"),
    ),
    HostileCase(
        "R3.4",
        "fuse-out-into-git",
        ("fuse", "run.jsonl", "run.jsonl", "--out", ".git/objects/fused.jsonl"),
        files={**WORKSPACE, ".git/config": GIT_CONFIG},
        stderr_has="inside a .git folder",
        check=nothing_in_git_objects,
    ),
]


# -- R3.3: what a command prints shows control characters and bidi marks, never obeys them -----------
ESC = "\x1b]0;owned\x07\x1b[2J"  # sets the terminal's title, then clears the screen
RLO = "\u202e"  # right-to-left override: "txt.exe" shows as "exe.txt"
NO_CONTROLS = ("\x1b", "\x07", RLO)


def _report_claiming(baseline_sha256: str) -> bytes:
    report = json.loads(REPORT)
    report["inputs"]["baseline_sha256"] = baseline_sha256
    return json.dumps(report).encode()


def _report_with_repair(command: str) -> bytes:
    report = json.loads(REPORT)
    report["judgments"]["drift"] = {"valid": 1, "re_anchorable": 1, "invalid_ratio": 0.5, "repair_command": command}
    return json.dumps(report).encode()


HOSTILE_ID = f"q{RLO}1{ESC}"
RLO_JUDGMENTS = (json.dumps({"query_id": HOSTILE_ID, "query": "x", "doc_uri": "d1", "relevance": 1}) + "\n").encode()
RLO_RUN = (json.dumps({"query_id": HOSTILE_ID, "ranking": ["d2", "d1"]}, ensure_ascii=False) + "\n").encode()
CASES += [
    HostileCase(
        "R3.3",
        "verify-chain-claimed-sha",  # the review's probe: a value from the report, printed raw
        ("verify-chain", "a.json", "b.json"),
        files={"a.json": REPORT, "b.json": _report_claiming(ESC + "0" * 64)},
        exit_code=1,
        stdout_has="\\x1b]0;owned",
        stdout_lacks=NO_CONTROLS,
    ),
    HostileCase(
        "R3.3",
        "verify-chain-path",
        ("verify-chain", f"a{RLO}nosj.json", "b.json"),
        files={f"a{RLO}nosj.json": REPORT, "b.json": REPORT},
        exit_code=1,
        stdout_has="\\u202e",
        stdout_lacks=NO_CONTROLS,
    ),
    HostileCase(
        "R3.3",
        "holes-query-id",
        ("holes", "-j", "j.jsonl", "-r", "r.jsonl", "-k", "2"),
        files={"j.jsonl": RLO_JUDGMENTS, "r.jsonl": RLO_RUN},
        exit_code=0,
        stdout_has='"q\\u202e1\\u001b]0;owned',
        stdout_lacks=NO_CONTROLS,
    ),
    HostileCase(
        "R3.3",
        "convert-to-jsonl-on-stdout",
        ("convert", "q.txt", "--from", "trec-qrels", "--to", "judgments"),
        files={"q.txt": f"q{RLO}1 0 d{ESC}1 1\n".encode()},
        exit_code=0,
        stdout_has="\\u202e",
        stdout_lacks=NO_CONTROLS,
    ),
    HostileCase(
        "R3.3",
        "convert-to-trec-on-stdout",
        ("convert", "r.jsonl", "--to", "trec-run"),
        files={"r.jsonl": RLO_RUN},
        stderr_has="a terminal would obey",
        stdout_lacks=NO_CONTROLS,
    ),
    HostileCase(
        "R3.3",
        "repair-command-in-the-summary",  # the review's probe: a corpus path with a bidi override
        ("render", "--report", "r.json", "--format", "summary"),
        files={"r.json": _report_with_repair(f"retrieval-eval drift -c 'corpus{RLO}nosj.json' --fix")},
        exit_code=0,
        stdout_has="corpus⟨U+202E⟩nosj",
        stdout_lacks=NO_CONTROLS,
    ),
]


# -- R3.8: every number has a range, checked where settings are read -----------------------------------
def _range_case(name: str, argv: tuple[str, ...], says: str, files: dict[str, bytes] | None = None) -> HostileCase:
    return HostileCase("R3.8", name, argv, files=files or WORKSPACE, stderr_has=says, timeout=30)


CASES += [
    _range_case("threshold-1024", (*CLI_SCORE, "--threshold", "1024"), "--threshold: 1,024 is out of range"),
    _range_case("threshold-huge", (*CLI_SCORE, "--threshold", "99999999999"), "give 1 to 1,000"),
    _range_case("cutoff-huge", (*CLI_SCORE, "-k", "5,99999999999"), "-k: 99,999,999,999 is out of range"),
    _range_case("rrf-k-huge", ("fuse", "run.jsonl", "run.jsonl", "--rrf-k", "9" * 400, "--out", "f.jsonl"), "--rrf-k:"),
    _range_case(
        "fuse-depth-huge", ("fuse", "run.jsonl", "run.jsonl", "--depth", "9" * 30, "--out", "f.jsonl"), "--depth:"
    ),
    _range_case(
        "resamples-huge",
        ("compare", "--base", "a.json", "--head", "b.json", "--resamples", "10000000000"),
        "--resamples:",
    ),
    _range_case("seed-huge", ("compare", "--base", "a.json", "--head", "b.json", "--seed", "9" * 100), "--seed:"),
    _range_case("validate-threshold", ("validate", "-j", "judgments.jsonl", "--threshold", "1024"), "--threshold:"),
    _range_case("answer-in-query-huge", (*CLI_SCORE, "--answer-in-query", "5000"), "--answer-in-query: 5,000"),
    HostileCase(
        "R3.8",
        "config-threshold-huge",  # the review's probe: minutes and 12 GB before
        ("action",),
        files={**WORKSPACE, ".retrieval-eval.yml": b"threshold: 99999999999\n"},
        env=runner(),
        setup=with_runner_folder,
        stdout_has="threshold: 99,999,999,999 is out of range",
        check=outputs_say("ERROR"),
        timeout=30,
        github=True,
        comment_has="could not answer",
    ),
]


# -- R3.10: a template's time is bounded as its allocations are -----------------------------------------
SILENT_LOOPS = {
    # The review's probe: nested loops that print nothing, so no allocation bound ever trips. Each
    # row here spends the whole real bound (5 s of CPU), so the table runs the probe once through
    # the CLI and once through the action; its variants (strings, macros, filters, recursion, ...)
    # run in tests/test_template_time.py through the same sandbox with the bound made small.
    "nested-ranges": "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
}


def _slow_template(name: str, body: str) -> HostileCase:
    return HostileCase(
        "R3.10",
        f"template-{name}",
        ("render", "--report", "report.json", "--format", "comment", "--template-dir", "templates"),
        files={"report.json": REPORT, "templates/comment.md.j2": ("{{ marker }}\n" + body + "\n").encode()},
        stderr_has="the template ran for more than 1 seconds; templates are time-bound",
        # The bound through the command line end to end, set to 1 s (RETRIEVAL_EVAL_TEMPLATE_SECONDS)
        # so the suite does not spend the default 5 s; test_limits_doc.py holds the default to the docs.
        env={"RETRIEVAL_EVAL_TEMPLATE_SECONDS": "1"},
        timeout=40,
    )


CASES += [_slow_template(name, body) for name, body in SILENT_LOOPS.items()]
CASES.append(
    dataclasses.replace(
        _leak("action-template-loops", config=b"template-dir: t\n", files={}, says="templates are time-bound"),
        item="R3.10",
        files={
            **WORKSPACE,
            ".retrieval-eval.yml": b"template-dir: t\n",
            "t/summary.md.j2": _template(SILENT_LOOPS["nested-ranges"]),
        },
        env=runner(RETRIEVAL_EVAL_TEMPLATE_SECONDS="1"),  # as the command line's case: 1 s, not 5
        check=None,
        timeout=60,
    )
)


# -- R3.9: -k all with a corpus, and reports written with -k all read back by every reader -------------
def _full_depth_report() -> bytes:
    from retrieval_eval.core.scoring import ScoreConfig
    from retrieval_eval.formats.report import dump_report
    from retrieval_eval.pipeline.evaluate import run_pipeline
    from retrieval_eval.pipeline.request import EvaluationRequest

    request = EvaluationRequest(
        judgments_path=str(DEMO / "judgments.jsonl"),
        run_path=str(DEMO / "run.jsonl"),
        scoring=ScoreConfig(k=(), full_depth=True),
        generated_at="2026-01-01T00:00:00Z",
    )
    return dump_report(run_pipeline(request).report).encode("utf-8")


ALL_REPORT = _full_depth_report()
DEMO_FILES = {"j.jsonl": DEMO_JUDGMENTS, "r.jsonl": DEMO_RUN, "c.json": (DEMO / "corpus.json").read_bytes()}
DEMO_SCORE = ("score", "-j", "j.jsonl", "-r", "r.jsonl")


def _all_case(name: str, argv: tuple[str, ...], files: dict[str, bytes], says: str = "") -> HostileCase:
    return HostileCase("R3.9", name, argv, files=files, exit_code=0, stdout_has=says)


CASES += [
    _all_case("score-all-with-corpus", (*DEMO_SCORE, "-k", "all", "--corpus", "c.json"), DEMO_FILES, "verdict"),
    _all_case(
        "holes-all-with-corpus",
        ("holes", "-j", "j.jsonl", "-r", "r.jsonl", "-k", "all", "--corpus", "c.json"),
        DEMO_FILES,
    ),
    _all_case(
        "render-an-all-report", ("render", "--report", "a.json", "--format", "summary"), {"a.json": ALL_REPORT}, "map"
    ),
    _all_case("compare-all-reports", ("compare", "--base", "a.json", "--head", "a.json"), {"a.json": ALL_REPORT}),
    _all_case("verify-chain-all-report", ("verify-chain", "a.json"), {"a.json": ALL_REPORT}, "ok"),
    _all_case("history-all-report", ("history", "a.json", "a.json"), {"a.json": ALL_REPORT}),
    _all_case(
        "baseline-an-all-report",
        (*DEMO_SCORE, "-k", "all", "--baseline", "a.json"),
        {**DEMO_FILES, "a.json": ALL_REPORT},
    ),
    HostileCase(
        "R3.9",
        "action-all-with-corpus-and-an-all-baseline",  # the review's probe: exit 2 on every later pull request
        ("action",),
        files={**DEMO_FILES, "a.json": ALL_REPORT},
        env=runner(
            INPUT_JUDGMENTS="j.jsonl",
            INPUT_RUN="r.jsonl",
            INPUT_CORPUS="c.json",
            INPUT_K="all",
            INPUT_BASELINE="a.json",
        ),
        setup=with_runner_folder,
        exit_code=0,
        check=outputs_say("PASS"),
        github=True,
        comment_has="PASS",
    ),
]


# -- R3.12: a whole document's refusal names its file ---------------------------------------------------
DEEP = b"[" * 100 + b"]" * 100
CASES += [
    HostileCase(
        "R3.12",
        "compare-base-too-deep",
        ("compare", "--base", "b.json", "--head", "a.json"),
        files={"b.json": DEEP, "a.json": REPORT},
        stderr_has="base (b.json): ",
    ),  # the review's probe
    HostileCase(
        "R3.12",
        "render-report-not-a-report",
        ("render", "--report", "x.json"),
        files={"x.json": b'{"spec_version": "2"}'},
        stderr_has="report (x.json): ",
    ),
    HostileCase(
        "R3.12",
        "score-baseline-not-json",
        (*CLI_SCORE, "--baseline", "b.json"),
        files={**WORKSPACE, "b.json": b"{not json"},
        stderr_has="b.json):1: not valid JSON",
    ),
    HostileCase(
        "R3.12",
        "history-second-report",
        ("history", "a.json", "b.json"),
        files={"a.json": REPORT, "b.json": b"[]"},
        stderr_has="(b.json): a report must be a JSON object",
    ),
]


# -- R3.13: an endless whole-document input is refused at its first bytes ----------------------------------
def link_to(name: str, target: str):  # type: ignore[no-untyped-def]
    def setup(tmp: Path) -> None:
        (tmp / name).symlink_to(target)

    return setup


def _device_case(name: str, argv: tuple[str, ...], device: str, says: str) -> HostileCase:
    # The limit on what is buffered is raised past the machine's memory: a refusal must come first.
    return HostileCase(
        "R3.13",
        name,
        argv,
        files=WORKSPACE,
        setup=link_to("dev", device),
        stderr_has=says,
        env={"RETRIEVAL_EVAL_MAX_DOCUMENT_BYTES": str(1 << 40)},
        timeout=20,
    )


CASES += [
    _device_case("render-dev-zero", ("render", "--report", "dev"), "/dev/zero", "NUL byte (byte 1)"),  # the probe
    _device_case("compare-dev-urandom", ("compare", "--base", "dev", "--head", "dev"), "/dev/urandom", "base (dev): "),
    _device_case("baseline-dev-zero", (*CLI_SCORE, "--baseline", "dev"), "/dev/zero", "NUL byte"),
    _device_case("verify-chain-dev-zero", ("verify-chain", "dev"), "/dev/zero", "NUL byte"),
    _device_case("chunk-id-file-dev-zero", ("chunk-id", "--file", "dev", "--text-sha"), "/dev/zero", "NUL byte"),
]


# -- R3.15: a template folder outside the workspace is refused as it is, naming the setting --------------
def link_templates_outside(tmp: Path) -> None:
    with_runner_folder(tmp)
    outside = tmp.parent / f"{tmp.name}-templates"
    outside.mkdir(exist_ok=True)
    (tmp / "t").symlink_to(outside)


def _template_dir_case(name: str, value: bytes, says: str, lacks: tuple[str, ...] = (), setup=with_runner_folder):  # type: ignore[no-untyped-def]
    return HostileCase(
        "R3.15",
        name,
        ("action",),
        files={**WORKSPACE, ".retrieval-eval.yml": b"template-dir: " + value + b"\n"},
        env=runner(),
        setup=setup,
        stdout_has=says,
        stdout_lacks=lacks,
        github=True,
        comment_has="could not answer",
    )


CASES += [
    _template_dir_case(
        "absolute", b"/etc", "template-dir: '/etc' must be a path inside the repository", ("symbolic link",)
    ),
    _template_dir_case(
        "dot-dot", b"../elsewhere", "template-dir: '../elsewhere' must be a path inside", ("symbolic link",)
    ),
    _template_dir_case(
        "through-a-link", b"t", "template-dir: t leads outside the workspace", setup=link_templates_outside
    ),
]
CASES.append(
    dataclasses.replace(
        _template_dir_case(
            "judgments-written-outside", b"t", "judgments.jsonl leads outside the workspace", ("symbolic link",)
        ),
        env=runner(INPUT_JUDGMENTS="../judgments.jsonl"),  # need not exist: the path alone is refused
    )
)


# -- R3.11: the Python API raises only its own errors --------------------------------------------------
API = """
import math, sys
import retrieval_eval as api
try:
    {call}
except api.RetrievalEvalError as error:
    print("error", error, file=sys.stderr)
    sys.exit(2)
"""


def _api_case(name: str, call: str, says: str) -> HostileCase:
    return HostileCase("R3.11", name, (), files=WORKSPACE, code=API.format(call=call), stderr_has=says, timeout=30)


CASES += [
    _api_case(
        "max-drift-nan",
        "api.evaluate('judgments.jsonl', 'run.jsonl', corpus='c.json', max_drift=math.nan)",
        "max_drift",
    ),
    _api_case("threshold-a-string", "api.evaluate('judgments.jsonl', 'run.jsonl', threshold='2')", "threshold"),
    _api_case("threshold-huge", "api.evaluate('judgments.jsonl', 'run.jsonl', threshold=10**400)", "out of range"),
    _api_case("k-a-dict", "api.evaluate('judgments.jsonl', 'run.jsonl', k={'a': 1})", "k: expected"),
    _api_case("gates-numbers", "api.evaluate('judgments.jsonl', 'run.jsonl', gates=[1, 2])", "gates: expected"),
    _api_case("resamples-huge", "api.compare('r.json', 'r.json', resamples=10**12)", "resamples"),
    _api_case("corpus-a-number", "api.drift('judgments.jsonl', 3)", "corpus: expected a path"),
    _api_case("metric-name-none", "api.canonical_metric(None)", "name: expected"),
    _api_case("path-with-nul", "api.load_run('run\\0.jsonl')", "NUL"),
]


# -- R3.14: a signal at any moment of a write leaves no temporary file ------------------------------------
SIGNAL_AT_CREATION = """
import os, signal, sys
from retrieval_eval.formats import fileio

real_open = os.open

def open_then_signal(path, flags, mode=0o777):
    fd = real_open(path, flags, mode)
    if str(path).endswith(".tmp"):
        os.kill(os.getpid(), signal.SIGTERM)
    return fd

fileio.os.open = open_then_signal
sys.argv[1:] = ["convert", "judgments.jsonl", "--to", "trec-qrels", "--out", "q.txt"]
from retrieval_eval.entry import main
main()
"""


def no_temporary_file(tmp: Path) -> None:
    assert not list(tmp.glob(".*.tmp")) and not (tmp / "q.txt").exists()


CASES.append(
    HostileCase(
        "R3.14",
        "convert-out-signal-at-creation",
        (),
        files=WORKSPACE,
        code=SIGNAL_AT_CREATION,
        exit_code=-15,
        check=no_temporary_file,
    )
)
CASES.append(
    dataclasses.replace(
        _command_case("report-path-escape-sequence", b'report: "out\\e[2J\\e]0;owned\\aow.json"\n', says="\\x1b[2J"),
        stdout_lacks=("\x1b", "\x07"),
    )
)
