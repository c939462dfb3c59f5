"""The catalog's content hash (cache/digest.py): the sha256 of the bytes, checked against coreutils' sha256sum;
remembered under the file's identity, so a second request reads it back, and a changed file is hashed afresh. The
identity's digest (XXH3-128 of the XXH3-128 digests of the file's blocks) is checked against the library hashing
slices of the file's bytes, one call each."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from nsys_analytics.data.cache import digest

from .conftest import PROFILES

pytestmark = pytest.mark.skipif(shutil.which("sha256sum") is None, reason="coreutils' sha256sum is not installed")


def sha256sum(path) -> str:
    return subprocess.run(["sha256sum", str(path)], capture_output=True, text=True, check=True).stdout.split()[0]


@pytest.fixture
def profile(tmp_path):
    path = tmp_path / "run.sqlite"
    shutil.copyfile(PROFILES / "gpt_train.sqlite", path)
    return path


def memos(cache_folder):
    folder = cache_folder / "digests"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def test_the_digest_is_the_files_sha256_and_is_remembered(profile, cache_folder, monkeypatch):
    assert digest.sha256_of(profile) == sha256sum(profile)
    assert len(memos(cache_folder)) == 1
    monkeypatch.setattr(digest, "hash_file", lambda path, algorithm: pytest.fail("hashed again"))
    assert digest.sha256_of(profile) == sha256sum(profile)


def test_a_changed_file_is_hashed_afresh(profile, cache_folder):
    first = digest.sha256_of(profile)
    with open(profile, "r+b") as f:  # same size, one byte changed in the middle, mtime kept
        st = os.stat(profile)
        f.seek(st.st_size // 3)
        byte = f.read(1)
        f.seek(st.st_size // 3)
        f.write(bytes([byte[0] ^ 0xFF]))
    os.utime(profile, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    assert digest.sha256_of(profile) == sha256sum(profile) != first
    assert len(memos(cache_folder)) == 2


def blocks_xxh3(data: bytes, block: int) -> str:
    """XXH3-128 of the XXH3-128 digests of `data`'s `block`-byte slices, each hashed by the library in one call."""
    import xxhash

    return xxhash.xxh3_128(b"".join(xxhash.xxh3_128(data[i:i + block]).digest()
                                    for i in range(0, max(len(data), 1), block))).hexdigest()


def test_the_identity_digest_is_the_xxh3_of_the_files_blocks_and_is_remembered_apart_from_its_sha256(
        profile, cache_folder, monkeypatch):
    whole = blocks_xxh3(profile.read_bytes(), digest.BLOCK)
    assert digest.content_digest(profile) == whole
    assert digest.sha256_of(profile) == sha256sum(profile)
    assert sorted(m.rsplit(".", 1)[1] for m in memos(cache_folder)) == ["sha256", "xxh3_blocks"]
    monkeypatch.setattr(digest, "hash_file", lambda path, algorithm: pytest.fail("hashed again"))
    assert digest.content_digest(profile) == whole
    monkeypatch.undo()
    with open(profile, "r+b") as f:  # one byte changed at the end, mtime kept
        st = os.stat(profile)
        f.seek(st.st_size - 1)
        byte = f.read(1)
        f.seek(st.st_size - 1)
        f.write(bytes([byte[0] ^ 0xFF]))
    os.utime(profile, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert digest.content_digest(profile) == blocks_xxh3(profile.read_bytes(), digest.BLOCK) != whole


@pytest.mark.parametrize("block", [4096, 10_000, 1 << 20])
def test_the_blocks_are_hashed_in_order_on_several_threads_whatever_the_last_ones_length(profile, block,
                                                                                          monkeypatch):
    """Blocks that divide the file, that leave a short last one, and one block larger than the file; on four
    threads, as many as the machine has cores, and on one: the same digest, the blocks' order kept."""
    data = profile.read_bytes()
    monkeypatch.setattr(digest, "BLOCK", block)
    expected = blocks_xxh3(data, block)
    for cores in (4, os.cpu_count(), 1):
        monkeypatch.setattr(os, "cpu_count", lambda: cores)
        assert digest.hash_file(profile, "xxh3_blocks") == expected
    swapped = b"".join(reversed([data[i:i + block] for i in range(0, len(data), block)]))
    if len(data) > block:
        assert blocks_xxh3(swapped, block) != expected


def test_an_empty_file_has_the_digest_of_one_empty_block(tmp_path):
    import xxhash

    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    assert digest.hash_file(empty, "xxh3_blocks") == xxhash.xxh3_128(xxhash.xxh3_128(b"").digest()).hexdigest()


def test_a_damaged_memo_is_not_believed(profile, cache_folder):
    digest.sha256_of(profile)
    (memo,) = (cache_folder / "digests").iterdir()
    memo.write_text("not a digest\n")
    assert digest.sha256_of(profile) == sha256sum(profile)


def test_no_cache_remembers_nothing(profile, cache_folder, monkeypatch):
    monkeypatch.setenv("NSYS_ANALYTICS_NO_CACHE", "1")
    assert digest.sha256_of(profile) == sha256sum(profile)
    assert memos(cache_folder) == []


def test_an_unwritable_cache_folder_is_no_error(profile, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("NSYS_ANALYTICS_CACHE", str(blocker / "cache"))  # under a file: cannot be created
    assert digest.sha256_of(profile) == sha256sum(profile)
