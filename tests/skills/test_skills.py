"""Agent Skills: the format's checks, safe zips, the CLI, and what the model is sent."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.skills.catalog import find_skills, usable
from desktop.skills.format import read_skill
from desktop.skills.install import SkillInstallError, add_skill
from tests.cli.test_ask_export import KEY, assista
from tests.support.openai_server import FakeOpenAIServer

BODY_MARK = "Step 3: run scripts/merge.py with the input files"


def make_skill(root: Path, name: str = "pdf-tools",
               description: str = "Merge PDF files and fill PDF forms.",
               extra: str = "allowed-tools: run_command read_file\n") -> Path:
    folder = root / name
    (folder / "scripts").mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n{extra}---\n# PDF tools\n\n"
        f"{BODY_MARK}.\n", encoding="utf-8")
    (folder / "scripts" / "merge.py").write_text("print('merged')\n")
    (folder / "reference.md").write_text("Form fields.\n")
    return folder


@pytest.mark.parametrize(("front", "problem"), [
    ("name: Pdf\ndescription: x\n", "lowercase letters"),
    ("name: pdf--tools\ndescription: x\n", "single hyphens"),
    ("name: -pdf\ndescription: x\n", "single hyphens"),
    ("name: " + "a" * 65 + "\ndescription: x\n", "longer than 64"),
    ("name: other\ndescription: x\n", "not the folder's name"),
    ("name: skill\n", "no 'description'"),
    ("name: skill\ndescription: '" + "d" * 1025 + "'\n", "longer than 1024"),
    ("name: skill\ndescription: [unclosed\n", "not valid YAML"),
    ("- a list\n", "not a mapping"),
    ("name: skill\ndescription: x\nallowed-tools: {a: 1}\n", "allowed-tools"),
])
def test_broken_skills_are_listed_with_their_problem(tmp_path: Path, front: str,
                                                      problem: str) -> None:
    folder = tmp_path / "skills" / "skill"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\n{front}---\nBody\n")
    skill = read_skill(folder)
    assert skill.problem is not None and problem in skill.problem
    found = find_skills(tmp_path)
    assert [s.name for s in found] == ["skill"] and usable(found) == []


def test_valid_skill_and_workspace_skills(tmp_path: Path) -> None:
    make_skill(tmp_path / "skills")
    workspace = tmp_path / "ws"
    make_skill(workspace / ".claude" / "skills", "house-style", "Our writing style.")
    (workspace / ".agents" / "skills" / "not-a-skill").mkdir(parents=True)
    skills = find_skills(tmp_path, str(workspace))
    assert [(s.name, s.origin) for s in skills] == [("house-style", "workspace"),
                                                    ("pdf-tools", "app")]
    assert skills[1].allowed_tools == ("run_command", "read_file")
    assert [s.name for s in usable(skills, {"house-style"})] == ["pdf-tools"]


def _zip(path: Path, members: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return path


def test_add_from_zip_and_refusals(tmp_path: Path) -> None:
    text = (make_skill(tmp_path / "src") / "SKILL.md").read_text()
    good = _zip(tmp_path / "good.zip", {"pdf-tools/SKILL.md": text,
                                        "pdf-tools/scripts/merge.py": "print(1)\n"})
    assert add_skill(tmp_path / "data", good) == "pdf-tools"
    assert (tmp_path / "data" / "skills" / "pdf-tools" / "scripts" / "merge.py").is_file()
    with pytest.raises(SkillInstallError, match="already added"):
        add_skill(tmp_path / "data", good)
    evil = _zip(tmp_path / "evil.zip", {"SKILL.md": text.replace("pdf-tools", "evil"),
                                        "../../escaped.txt": "x"})
    with pytest.raises(SkillInstallError, match="outside its folder"):
        add_skill(tmp_path / "data", evil)
    assert not (tmp_path / "escaped.txt").exists() and not (tmp_path / "data" / "skills" /
                                                            "evil").exists()
    with pytest.raises(SkillInstallError, match=r"no SKILL\.md"):
        add_skill(tmp_path / "data", _zip(tmp_path / "empty.zip", {"README": "x"}))


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(models=["gpt-test"]) as fake:
        yield fake


def test_cli_add_list_remove(tmp_path: Path) -> None:
    data = ["--data-dir", str(tmp_path / "data")]
    source = make_skill(tmp_path / "src")
    added = assista("skills", "add", str(source), *data, data_dir=tmp_path)
    assert added.returncode == 0, added.stderr
    listed = assista("skills", "list", *data, data_dir=tmp_path)
    assert listed.stdout.splitlines() == [
        "pdf-tools\ton\tapp\tMerge PDF files and fill PDF forms."]
    broken = make_skill(tmp_path / "src", "bad-one", extra="allowed-tools: {a: 1}\n")
    refused = assista("skills", "add", str(broken), *data, data_dir=tmp_path)
    assert refused.returncode == 1 and "allowed-tools" in refused.stderr
    removed = assista("skills", "remove", "pdf-tools", *data, data_dir=tmp_path)
    assert removed.returncode == 0, removed.stderr
    assert assista("skills", "list", *data, data_dir=tmp_path).stdout == ""
    missing = assista("skills", "remove", "pdf-tools", *data, data_dir=tmp_path)
    assert missing.returncode == 1 and "no added skill named pdf-tools" in missing.stderr


def test_description_in_prompt_body_only_after_load_skill(server: FakeOpenAIServer,
                                                          tmp_path: Path) -> None:
    data = ["--data-dir", str(tmp_path / "data")]
    assert assista("skills", "add", str(make_skill(tmp_path / "src")), *data,
                   data_dir=tmp_path).returncode == 0
    server.enqueue_tool_calls([("load_skill", json.dumps({"name": "pdf-tools"}))])
    server.enqueue_text("Loaded.")
    done = assista("ask", "--base-url", server.base_url, "--model", "gpt-test",
                   "Merge a.pdf and b.pdf", data_dir=tmp_path / "data", env=KEY)
    assert done.returncode == 0, done.stderr
    first, second = server.chat_requests[0].json, server.chat_requests[1].json
    system = first["messages"][0]
    assert system["role"] == "system"
    assert "- pdf-tools: Merge PDF files and fill PDF forms." in system["content"]
    assert BODY_MARK not in json.dumps(first)
    assert "load_skill" in [t["function"]["name"] for t in first["tools"]]
    result = json.loads(second["messages"][-1]["content"])["result"]
    assert BODY_MARK in result["instructions"]
    assert sorted(result["files"]) == ["reference.md", "scripts/merge.py"]
    assert result["folder"].endswith("skills/pdf-tools")
    # Switched off in Settings: neither listed nor loadable.
    server.reset()
    from desktop.app import AppContext

    ctx = AppContext.open(str(tmp_path / "data"), log_to_stderr=False)
    try:
        ctx.settings.update(disabled_skills=["pdf-tools"])
    finally:
        ctx.close()
    server.enqueue_text("No skills.")
    done = assista("ask", "--base-url", server.base_url, "--model", "gpt-test", "hi",
                   data_dir=tmp_path / "data", env=KEY)
    assert done.returncode == 0, done.stderr
    request = server.chat_requests[0].json
    assert "pdf-tools" not in json.dumps(request)
    assert "load_skill" not in [t["function"]["name"] for t in request.get("tools", [])]


@pytest.mark.parametrize("member", ["../outside/", "/abs/path.txt", "C:/windows.txt",
                                    "a/../../b.txt", "..\\\\win\\\\x.txt"])
def test_safe_zip_refuses_paths_outside(tmp_path: Path, member: str) -> None:
    from desktop.storage.safe_zip import UnsafeZipError, extract_zip

    archive_path = tmp_path / "x.zip"
    with zipfile.ZipFile(archive_path, "w") as archive:
        archive.writestr("ok.txt", "fine")
        archive.writestr(member, "" if member.endswith("/") else "bad")
    with pytest.raises(UnsafeZipError):
        extract_zip(archive_path, tmp_path / "out" / "in")
    assert not (tmp_path / "out").exists()
    assert not (tmp_path / "outside").exists()


def test_safe_zip_refuses_links_and_bombs(tmp_path: Path) -> None:
    from desktop.storage.safe_zip import UnsafeZipError, extract_zip

    link = tmp_path / "link.zip"
    with zipfile.ZipFile(link, "w") as archive:
        info = zipfile.ZipInfo("evil-link")
        info.external_attr = (0o120777 << 16)
        archive.writestr(info, "/etc/passwd")
    with pytest.raises(UnsafeZipError, match="symbolic link"):
        extract_zip(link, tmp_path / "a")
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("zeros", b"\0" * (3 * 1024 * 1024))
    with pytest.raises(UnsafeZipError, match="more than 2 MB"):
        extract_zip(bomb, tmp_path / "b", max_bytes=2 * 1024 * 1024)


def test_safe_zip_refuses_more_members_than_its_limit(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from desktop.storage import safe_zip

    monkeypatch.setattr(safe_zip, "MAX_MEMBERS", 3)
    archive = _zip(tmp_path / "many.zip", {f"f{i}.txt": "x" for i in range(4)})
    with zipfile.ZipFile(archive) as opened, \
            pytest.raises(safe_zip.UnsafeZipError, match="more than 3 files"):
        safe_zip.check_zip(opened)
