"""Reading files at a commit from a checkout's object store without git, checked
against git itself: every (revision, path) must read as ``git show`` prints it,
for loose objects, packs with offset deltas, packs with reference deltas, shallow
clones, linked worktrees, and refs of every kind."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from action_workspace import git, repack
from retrieval_eval.action.git import GitObjects


def git_show(repo: Path, rev: str, path: str) -> bytes | None:
    """What git reads for a file; None for a folder, as the reader only reads files."""
    shown = subprocess.run(
        ["git", "cat-file", "blob", f"{rev}:{path}"], cwd=repo, capture_output=True, timeout=60, check=False
    )
    return shown.stdout if shown.returncode == 0 else None


def commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A repository whose big file changes a little in every commit, so that a repack
    stores most of its versions as deltas of one another."""
    repo = tmp_path_factory.mktemp("history")
    git(repo, "init", "-q", "-b", "main")
    rng = random.Random(7)
    lines = [f"line {i} {rng.random()}\n" for i in range(3000)]
    shas = []
    for n in range(12):
        lines[rng.randrange(len(lines))] = f"changed in {n}\n"
        lines.insert(rng.randrange(len(lines)), f"inserted in {n}\n")
        (repo / "reports").mkdir(exist_ok=True)
        (repo / "reports" / "big.json").write_text("".join(lines), encoding="utf-8")
        (repo / "small.txt").write_text(f"version {n}\n", encoding="utf-8")
        (repo / f"added-{n}.txt").write_bytes(bytes(range(256)) * (n + 1))
        shas.append(commit_all(repo, f"commit {n}"))
    return repo, shas


PATHS = ["reports/big.json", "small.txt", "added-0.txt", "added-11.txt", "reports", "missing.txt", "reports/nope"]


def assert_reads_like_git(repo: Path, revs: list[str]) -> None:
    reader = GitObjects(repo)
    for rev in revs:
        for path in PATHS:
            assert reader.show(rev, path) == git_show(repo, rev, path), (rev, path)


def test_loose_objects(history: tuple[Path, list[str]], tmp_path: Path) -> None:
    repo, shas = history
    loose = tmp_path / "loose"
    subprocess.run(["cp", "-a", str(repo), str(loose)], check=True, timeout=60)
    assert not list((loose / ".git" / "objects" / "pack").glob("*.pack"))
    assert_reads_like_git(loose, shas)


@pytest.mark.parametrize("offset_deltas", ["true", "false"])
def test_packs_with_offset_and_reference_deltas(
    history: tuple[Path, list[str]], tmp_path: Path, offset_deltas: str
) -> None:
    repo = tmp_path / "packed"
    subprocess.run(["cp", "-a", str(history[0]), str(repo)], check=True, timeout=60)
    repack(repo, offset_deltas)
    assert not [p for p in (repo / ".git" / "objects").iterdir() if len(p.name) == 2]
    verify = git(repo, "verify-pack", "-v", *map(str, (repo / ".git" / "objects" / "pack").glob("*.idx")))
    chained = [line for line in verify.splitlines() if "chain length = " in line]
    assert any(int(line.split("= ")[1].split(":")[0]) >= 5 for line in chained), "no long delta chains"
    assert_reads_like_git(repo, history[1])


def test_reference_deltas_are_really_written_as_such(history: tuple[Path, list[str]], tmp_path: Path) -> None:
    """The type byte of each delta entry, read from the pack, says which kind the
    other test exercised: 6 (offset) by default, 7 (reference) with the option off."""
    kinds = {}
    for offset_deltas in ("true", "false"):
        repo = tmp_path / offset_deltas
        subprocess.run(["cp", "-a", str(history[0]), str(repo)], check=True, timeout=60)
        repack(repo, offset_deltas)
        pack = next((repo / ".git" / "objects" / "pack").glob("*.idx"))
        offsets = [
            int(line.split()[0])
            for line in subprocess.run(["git", "show-index"], input=pack.read_bytes(), capture_output=True, check=True)
            .stdout.decode()
            .splitlines()
        ]
        data = pack.with_suffix(".pack").read_bytes()
        kinds[offset_deltas] = {(data[offset] >> 4) & 7 for offset in offsets}
    assert 6 in kinds["true"] and 7 not in kinds["true"]
    assert 7 in kinds["false"] and 6 not in kinds["false"]


def test_refs_of_every_kind(history: tuple[Path, list[str]], tmp_path: Path) -> None:
    repo = tmp_path / "refs"
    subprocess.run(["cp", "-a", str(history[0]), str(repo)], check=True, timeout=60)
    shas = history[1]
    git(repo, "tag", "light", shas[3])
    git(repo, "tag", "-a", "-m", "annotated", "heavy", shas[4])
    git(repo, "tag", "-a", "-m", "a tag of a tag", "heavier", "heavy")
    git(repo, "branch", "release", shas[5])
    git(repo, "update-ref", "refs/remotes/origin/main", shas[6])
    git(repo, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
    git(repo, "pack-refs", "--all")  # some refs packed ...
    git(repo, "branch", "loose-branch", shas[7])  # ... and some loose
    (repo / ".git" / "FETCH_HEAD").write_text(f"{shas[8]}\t\tbranch 'x' of somewhere\n{shas[1]}\tnot-for-merge\n")
    revs = [
        "HEAD",
        "main",
        "light",
        "heavy",
        "heavier",
        "tags/heavy",
        "refs/tags/light",
        "release",
        "heads/release",
        "origin/main",
        "origin",
        "remotes/origin/main",
        "loose-branch",
        "FETCH_HEAD",
        "HEAD~1",
        "HEAD~3",
        "HEAD^",
        "HEAD^^",
        "main~2^",
        "HEAD^0",
        "heavy~1",
        shas[2],
    ]
    for rev in revs:
        assert GitObjects(repo).has_commit(rev), rev
    assert_reads_like_git(repo, revs)


@pytest.mark.parametrize(
    "rev",
    [
        "nope",
        "HEAD~50",
        "HEAD^2",
        "0" * 40,
        "HEAD:",
        "../../etc/passwd",
        "/etc/hostname",
        "",
        "~1",
        "refs/heads/../../config",
        "light-typo",
    ],
)
def test_what_is_not_there_is_none(history: tuple[Path, list[str]], rev: str) -> None:
    reader = GitObjects(history[0])
    assert not reader.has_commit(rev)
    assert reader.show(rev, "small.txt") is None


def test_a_shallow_clone_has_only_the_commit_it_fetched(history: tuple[Path, list[str]], tmp_path: Path) -> None:
    """As actions/checkout leaves a pull request's checkout by default: one commit, no parents."""
    repo, shas = history
    clone = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(clone)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    reader = GitObjects(clone)
    assert reader.show("HEAD", "small.txt") == b"version 11\n"
    assert not reader.has_commit(shas[10]) and not reader.has_commit("HEAD~1")
    assert reader.show(shas[10], "small.txt") is None


def test_a_linked_worktree(history: tuple[Path, list[str]], tmp_path: Path) -> None:
    repo = tmp_path / "main-checkout"
    subprocess.run(["cp", "-a", str(history[0]), str(repo)], check=True, timeout=60)
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", "--detach", str(linked), history[1][2])
    assert (linked / ".git").is_file()
    reader = GitObjects(linked)
    assert reader.show("HEAD", "small.txt") == b"version 2\n"
    assert reader.show("main", "small.txt") == b"version 11\n"


def test_a_folder_that_is_not_a_repository(tmp_path: Path) -> None:
    assert GitObjects(tmp_path).show("HEAD", "x") is None
    assert not GitObjects(tmp_path / "missing").has_commit("HEAD")


def test_a_corrupt_object_is_not_read(history: tuple[Path, list[str]], tmp_path: Path) -> None:
    repo = tmp_path / "corrupt"
    subprocess.run(["cp", "-a", str(history[0]), str(repo)], check=True, timeout=60)
    blob = git(repo, "rev-parse", "HEAD:small.txt")
    path = repo / ".git" / "objects" / blob[:2] / blob[2:]
    path.chmod(0o644)
    path.write_bytes(b"not zlib at all")
    assert GitObjects(repo).show("HEAD", "small.txt") is None
    other = git(repo, "rev-parse", "HEAD~1:small.txt")
    swapped = repo / ".git" / "objects" / other[:2] / other[2:]
    path.write_bytes(swapped.read_bytes())  # a valid object, under another object's name
    assert GitObjects(repo).show("HEAD", "small.txt") is None
    assert GitObjects(repo).show("HEAD", "added-0.txt") == git_show(repo, "HEAD", "added-0.txt")
