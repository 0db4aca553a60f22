"""The data folder's lock: one owner at a time, refused at once with one line, and released by the
OS when the owner dies, even by SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.data_folder import folder_id, lock

REPO = Path(__file__).resolve().parents[2]
HOLD = """
import sys, time
from pathlib import Path
from service.data_folder import lock
lock.acquire(Path(sys.argv[1]), "serve", "http://127.0.0.1:9")
print("locked", flush=True)
time.sleep(600)
"""
TRY = """
import sys, time
from pathlib import Path
from service.data_folder import lock
started = time.perf_counter()
try:
    lock.acquire(Path(sys.argv[1]), "reconcile")
except lock.DataFolderBusy as exc:
    print(f"{time.perf_counter() - started:.4f}")
    print(exc)
    raise SystemExit(lock.BUSY_EXIT)
"""


@pytest.fixture
def holder_process(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process that owns `tmp_path` until it is killed."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(tmp_path)], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "locked"
    yield process
    process.kill()
    process.wait()


def test_a_second_process_is_refused_at_once_and_told_who_owns_the_folder(
    tmp_path: Path,
) -> None:
    lock.acquire(tmp_path, "serve", "http://127.0.0.1:8080")
    try:
        done = subprocess.run(
            [sys.executable, "-c", TRY, str(tmp_path)],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    finally:
        lock.release(tmp_path)
    seconds, message = done.stdout.splitlines()
    assert done.returncode == lock.BUSY_EXIT
    assert float(seconds) < 0.1
    assert message == (
        f"mnemograph: the data folder {tmp_path} is owned by `mnemograph serve` "
        f"(pid {os.getpid()}, http://127.0.0.1:8080). Use `mnemograph mcp` (it relays to that "
        "server) or its HTTP API, or stop it first with `mnemograph daemon stop`."
    )


def test_the_lock_is_released_when_its_owner_is_killed_with_sigkill(
    tmp_path: Path, holder_process: subprocess.Popen[str]
) -> None:
    assert lock.holder(tmp_path) == lock.Holder(
        pid=holder_process.pid, command="serve", url="http://127.0.0.1:9"
    )
    with pytest.raises(lock.DataFolderBusy):
        lock.acquire(tmp_path, "serve")
    os.kill(holder_process.pid, signal.SIGKILL)
    holder_process.wait(timeout=10)
    assert lock.holder(tmp_path) is None
    with lock.owning(tmp_path, "reconcile"):
        assert lock.holder(tmp_path) == lock.Holder(pid=os.getpid(), command="reconcile")
    assert lock.holder(tmp_path) is None


def test_taking_the_lock_again_in_the_same_process_nests(tmp_path: Path) -> None:
    with lock.owning(tmp_path, "serve", "http://127.0.0.1:1"):
        with lock.owning(tmp_path, "mnemograph"):
            assert lock.holder(tmp_path) == lock.Holder(os.getpid(), "serve", "http://127.0.0.1:1")
        assert lock.holder(tmp_path) is not None
    assert lock.holder(tmp_path) is None


def test_a_folder_nobody_has_locked_has_no_holder(tmp_path: Path) -> None:
    assert lock.holder(tmp_path / "never-created") is None


def test_the_message_for_a_non_server_owner_names_the_command_and_how_to_stop_it() -> None:
    message = lock.busy_message(Path("/data"), lock.Holder(pid=42, command="reconcile"))
    assert message == (
        "mnemograph: the data folder /data is owned by `mnemograph reconcile` (pid 42). "
        "Wait for it to finish or stop it (kill 42), or set MNEMO_DATA_DIR to another folder."
    )


@pytest.mark.parametrize(
    "command", [["serve"], ["mcp", "--embedded"], ["reconcile", "--full"], ["index"], ["migrate"]]
)
def test_every_command_that_opens_the_stores_is_turned_away_within_a_second(
    tmp_path: Path, holder_process: subprocess.Popen[str], command: list[str]
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_")}
    env["MNEMO_DATA_DIR"] = str(tmp_path)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", *command],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    elapsed = time.monotonic() - started
    assert done.returncode == lock.BUSY_EXIT
    assert elapsed < 1.0
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert f"pid {holder_process.pid}" in done.stderr
    assert "Traceback" not in done.stderr
    # nothing beyond what the holder wrote: its lock and the folder's id
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        folder_id.FOLDER_ID_FILE,
        lock.LOCK_FILE,
    ]
