"""Tests of matrixdp.datasets: shapes, checksums, preprocessing ranges, errors, downloads.

The shared data (../shared/datasets, via the ``data_home`` fixture) is read-only here:
corruption and download tests work on copies in ``tmp_path`` and never touch the network.
"""

from __future__ import annotations

import dataclasses
import io
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from matrixdp import datasets
from matrixdp.datasets import _fetch, ctg as ctg_module, liver as liver_module
from matrixdp.datasets import movement as movement_module, swarm as swarm_module
from matrixdp.datasets._checksums import SHA256
from matrixdp.errors import DatasetError


# ----------------------------------------------------------------------------- data home

def test_data_home_precedence(monkeypatch, tmp_path):
    monkeypatch.setenv("MATRIXDP_DATA", str(tmp_path / "env"))
    assert datasets.data_home(tmp_path / "arg") == tmp_path / "arg"
    assert datasets.data_home() == tmp_path / "env"
    monkeypatch.delenv("MATRIXDP_DATA")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    home = datasets.data_home()
    assert home.name == "matrixdp" or "matrixdp" in home.parts
    assert home != tmp_path / "env"


def test_dataset_error_is_oserror():
    assert issubclass(DatasetError, OSError)


# ----------------------------------------------------------------------------- loaders

def test_liver_raw(data_home):
    d = datasets.load_liver(data_home=data_home)
    assert d.data.shape == (345, 5) and d.target.shape == (345,)
    assert d.feature_names == ["mcv", "alkphos", "sgpt", "sgot", "gammagt"]
    assert d.target.min() == 0.0 and d.target.max() == 20.0
    assert np.bincount(d.extras["selector"])[1:].tolist() == [145, 200]
    assert d.frame.shape == (345, 6)
    assert "CC BY 4.0" in d.description


def test_liver_global_scaling_matches_spec(data_home):
    d = datasets.load_liver(data_home=data_home, scaling="global")
    table = np.column_stack([d.data, d.target])
    assert np.abs(table).max() == pytest.approx(1.0)
    np.testing.assert_allclose(table.mean(axis=0), 0.0, atol=1e-12)
    scale = d.preprocessing["scale"]["drinks"]
    assert len(set(d.preprocessing["scale"].values())) == 1  # one global scale
    assert scale == pytest.approx(258.716, abs=1e-3)  # max |centred gammagt| (spec §8.1: ≈ 259)
    # Spec mvg.md §8.1: the teacher's std ≈ 0.0129 (close to Table 3's non-private RMSE).
    assert d.target.std() == pytest.approx(0.0129, abs=2e-4)
    assert d.preprocessing["data_dependent"] is True


def test_liver_per_feature_scaling(data_home):
    d = datasets.load_liver(data_home=data_home, scaling="per_feature")
    table = np.column_stack([d.data, d.target])
    np.testing.assert_allclose(np.abs(table).max(axis=0), 1.0)
    assert d.target.std() > 0.1  # per-feature scaling gives a teacher ~10x wider than global


def test_liver_rejects_unknown_scaling(data_home):
    with pytest.raises(ValueError, match="scaling"):
        datasets.load_liver(data_home=data_home, scaling="zscore")


def test_ctg_raw_and_labels(data_home):
    d = datasets.load_ctg(data_home=data_home)
    assert d.data.shape == (2126, 21)
    assert d.feature_names[0] == "LB" and d.feature_names[-1] == "Tendency"
    assert np.bincount(d.target)[1:].tolist() == [1655, 295, 176]
    assert np.bincount(d.extras["CLASS"])[1:].tolist() == [384, 579, 53, 81, 72, 332, 252, 107, 69, 197]
    # AC..DP are per-second rates (the 'Data' sheet), not raw counts.
    assert d.data[:, 1:7].max() < 1.0  # raw counts reach the hundreds
    c = datasets.load_ctg(data_home=data_home, target="CLASS")
    assert c.target_names[0] == "A" and c.target.max() == 10


def test_ctg_minmax_and_center(data_home):
    d = datasets.load_ctg(data_home=data_home, scaling="minmax")
    np.testing.assert_allclose(d.data.min(axis=0), 0.0)
    np.testing.assert_allclose(d.data.max(axis=0), 1.0)
    c = datasets.load_ctg(data_home=data_home, scaling="minmax", center=True)
    np.testing.assert_allclose(c.data.mean(axis=0), 0.0, atol=1e-12)
    assert np.ptp(c.data, axis=0).max() == pytest.approx(1.0)


def test_ctg_derived_csv_matches_shipped_xls(data_home):
    payload = ctg_module.derive_ctg_csv(data_home / "ctg" / "CTG.xls")
    assert datasets._base.sha256_bytes(payload) == SHA256["ctg/CTG_Data_sheet.csv"]


def test_movement(data_home):
    d = datasets.load_movement_aal(data_home=data_home)
    assert d.data.shape == (13197, 4)
    assert np.abs(d.data).max() <= 1.0
    seqs = d.extras["sequences"]
    lengths = [len(s) for s in seqs]
    assert len(seqs) == 314 and min(lengths) == 19 and max(lengths) == 129
    assert np.unique(d.extras["sequence_id"]).size == 314
    assert (d.extras["sequence_target"] == 1).sum() == 158
    assert (d.extras["sequence_target"] == -1).sum() == 156
    assert np.bincount(d.extras["dataset_id"])[1:].tolist() == [2568, 5259, 5370]
    assert np.unique(d.data, axis=0).shape[0] == 12589
    s = datasets.load_movement_aal(data_home=data_home, rss_scale=100.0, center=True)
    np.testing.assert_allclose(s.data.mean(axis=0), 0.0, atol=1e-9)
    np.testing.assert_allclose(s.data + np.array(s.preprocessing["mean"]), 100 * d.data, atol=1e-9)
    with pytest.raises(ValueError, match="rss_scale"):
        datasets.load_movement_aal(data_home=data_home, rss_scale=-1)


def test_uber(data_home):
    d = datasets.load_uber_apr14(data_home=data_home)
    assert d.data.shape == (564516, 2)
    bases, counts = np.unique(d.extras["base"], return_counts=True)
    assert dict(zip(bases, counts))["B02682"] == 227808
    w = datasets.load_uber_apr14(data_home=data_home, start="2014-04-01 00:11", end="2014-04-03 23:57")
    assert 0 < w.data.shape[0] < d.data.shape[0] / 5
    assert w.extras["datetime"].min() >= np.datetime64("2014-04-01T00:11")
    assert w.extras["datetime"].max() <= np.datetime64("2014-04-03T23:57")
    box = (40.5, 41.0, -74.3, -73.6)
    grid = datasets.pickup_counts(w.data, bins=89, bounds=box)
    inside = ((w.data[:, 0] >= 40.5) & (w.data[:, 0] <= 41.0)
              & (w.data[:, 1] >= -74.3) & (w.data[:, 1] <= -73.6))
    assert grid.shape == (89, 89) and grid.sum() == inside.sum()
    with pytest.raises(ValueError, match="bounds"):
        datasets.pickup_counts(w.data, bounds=(41.0, 40.5, -74.3, -73.6))


def test_adult(data_home):
    train = datasets.load_adult(data_home=data_home)
    assert train.data.shape == (32561, 14) and train.target.sum() == 7841
    test = datasets.load_adult(data_home=data_home, split="test")
    assert test.data.shape == (16281, 14) and test.target.sum() == 3846
    both = datasets.load_adult(data_home=data_home, split="both", drop_missing=True, one_hot=True)
    assert both.data.shape[0] == 30162 + 15060 and both.data.dtype == float
    assert both.data.shape[1] == 6 + sum(len(v) for v in datasets.adult.ADULT_CATEGORIES.values())
    # Each categorical block is exactly one-hot after dropping missing values.
    start = 6
    for categories in datasets.adult.ADULT_CATEGORIES.values():
        block = both.data[:, start:start + len(categories)]
        assert np.all(block.sum(axis=1) == 1)
        start += len(categories)
    assert (both.extras["split"] == "test").sum() == 15060
    with pytest.raises(ValueError, match="split"):
        datasets.load_adult(data_home=data_home, split="validation")


def test_wdbc(data_home):
    d = datasets.load_wdbc(data_home=data_home)
    assert d.data.shape == (569, 30) and d.target.sum() == 212
    assert d.feature_names[0] == "radius_mean" and d.feature_names[-1] == "fractal_dimension_worst"


def test_lending_club(data_home):
    d = datasets.load_lending_club(data_home=data_home)
    assert d.data.shape == (9578, 19) and d.target.sum() == 1533
    block = d.data[:, 1:8]
    assert np.all(block.sum(axis=1) == 1)
    assert block.sum(axis=0).tolist() == [2331, 1262, 3957, 343, 629, 437, 619]
    raw = datasets.load_lending_club(data_home=data_home, one_hot=False)
    assert raw.data.shape == (9578, 13) and raw.feature_names[1] == "purpose"


def test_swarm_missing_and_structure(tmp_path, monkeypatch):
    with pytest.raises(DatasetError, match="swarm_behaviour/Flocking.csv") as info:
        datasets.load_swarm(data_home=tmp_path)
    assert "archive.ics.uci.edu/dataset/524" in str(info.value)
    folder = tmp_path / "swarm_behaviour"
    folder.mkdir()
    monkeypatch.setattr(swarm_module, "N_ROWS", 6)
    monkeypatch.setattr(swarm_module, "N_FEATURES", 3)
    rng = np.random.default_rng(0)
    values = rng.uniform(-5, 5, size=(6, 3))
    lines = ["x1,x2,x3,Class"] + [",".join(str(float(v)) for v in row) + f",{i % 2}" for i, row in enumerate(values)]
    (folder / "Flocking.csv").write_text("\n".join(lines) + "\n")
    d = datasets.load_swarm(data_home=tmp_path, scaling="minmax")
    assert d.data.shape == (6, 3) and d.target.tolist() == [0, 1, 0, 1, 0, 1]
    np.testing.assert_allclose(d.data.min(axis=0), -1.0)
    np.testing.assert_allclose(d.data.max(axis=0), 1.0)
    (folder / "Flocking.csv").write_text("\n".join(lines[:-1]) + "\n")
    with pytest.raises(DatasetError, match="expected 6 rows"):
        datasets.load_swarm(data_home=tmp_path)


# ----------------------------------------------------------------------------- missing / corrupted

LOADERS = {
    "liver": (datasets.load_liver, {}, "liver_disorders/bupa.data"),
    "ctg": (datasets.load_ctg, {}, "ctg/CTG_Data_sheet.csv"),
    "movement": (datasets.load_movement_aal, {}, "movement_aal/dataset/MovementAAL_RSS_17.csv"),
    "uber": (datasets.load_uber_apr14, {}, "uber_apr14/uber-raw-data-apr14.csv.gz"),
    "adult": (datasets.load_adult, {"split": "test"}, "adult/adult.test"),
    "wdbc": (datasets.load_wdbc, {}, "wdbc/wdbc.data"),
    "lending_club": (datasets.load_lending_club, {}, "lending_club/loan_data.csv"),
}


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_missing_file_says_where_and_how(name, tmp_path):
    loader, kwargs, relpath = LOADERS[name]
    with pytest.raises(DatasetError) as info:
        loader(data_home=tmp_path, **kwargs)
    message = str(info.value)
    assert str(tmp_path / relpath.split("/")[0]) in message
    assert "MATRIXDP_DATA" in message
    assert "https://" in message
    if name != "lending_club":
        assert "download=True" in message


def _copy_dataset(data_home: Path, tmp_path: Path, relpath: str) -> Path:
    folder = relpath.split("/")[0]
    shutil.copytree(data_home / folder, tmp_path / folder)
    return tmp_path / relpath


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_corrupted_file_is_refused(name, data_home, tmp_path):
    loader, kwargs, relpath = LOADERS[name]
    target = _copy_dataset(data_home, tmp_path, relpath)
    loader(data_home=tmp_path, **kwargs)  # the intact copy loads
    payload = bytearray(target.read_bytes())
    payload[len(payload) // 2] ^= 0x01  # flip one bit
    target.write_bytes(bytes(payload))
    with pytest.raises(DatasetError, match="SHA-256 mismatch") as info:
        loader(data_home=tmp_path, **kwargs)
    assert relpath in str(info.value)


def test_uber_accepts_plain_csv_and_checks_it(data_home, tmp_path):
    import gzip
    folder = tmp_path / "uber_apr14"
    folder.mkdir()
    raw = gzip.decompress((data_home / "uber_apr14" / "uber-raw-data-apr14.csv.gz").read_bytes())
    (folder / "uber-raw-data-apr14.csv").write_bytes(raw)
    assert datasets.load_uber_apr14(data_home=tmp_path).data.shape == (564516, 2)
    (folder / "uber-raw-data-apr14.csv").write_bytes(raw[:-10])
    with pytest.raises(DatasetError, match="SHA-256 mismatch"):
        datasets.load_uber_apr14(data_home=tmp_path)


# ----------------------------------------------------------------------------- downloads (no network)

def test_download_via_file_url(data_home, tmp_path, monkeypatch, capsys):
    url = (data_home / "liver_disorders" / "bupa.data").as_uri()
    monkeypatch.setattr(liver_module, "LIVER_SOURCE", dataclasses.replace(liver_module.LIVER_SOURCE, url=url))
    home = tmp_path / "home"
    d = datasets.load_liver(data_home=home, download=True)
    assert d.data.shape == (345, 5)
    assert (home / "liver_disorders" / "bupa.data").is_file()
    assert capsys.readouterr().err == ""  # off a terminal: no bar, and pooch's log stays quiet


def test_download_with_wrong_checksum_is_refused_and_deleted(tmp_path, monkeypatch):
    bogus = tmp_path / "bupa.data"
    bogus.write_text("1,2,3,4,5,6,1\n")
    monkeypatch.setattr(liver_module, "LIVER_SOURCE",
                        dataclasses.replace(liver_module.LIVER_SOURCE, url=bogus.as_uri()))
    home = tmp_path / "home"
    with pytest.raises(DatasetError, match="refused"):
        datasets.load_liver(data_home=home, download=True, progress=False)
    assert list((home / "liver_disorders").iterdir()) == []


def _fake_downloads(fetch):
    """A replacement for ``_fetch.make_downloader``: ``fetch(url)`` returns the bytes served."""
    def make(url, progress):
        def download(u, output_file, pooch_obj=None, check_only=False):
            payload = fetch(u)
            with open(output_file, "wb") as fh:
                fh.write(payload)
        return download
    return make


def test_download_uses_replaceable_opener(data_home, tmp_path, monkeypatch):
    payload = (data_home / "wdbc" / "wdbc.data").read_bytes()
    seen = []

    def fake(url):
        seen.append(url)
        return payload

    monkeypatch.setattr(_fetch, "make_downloader", _fake_downloads(fake))
    d = datasets.load_wdbc(data_home=tmp_path, download=True, progress=False)
    assert d.data.shape == (569, 30)
    assert seen == [datasets.wdbc.WDBC_SOURCE.url]
    # Already present: no second download.
    datasets.load_wdbc(data_home=tmp_path, download=True, progress=False)
    assert len(seen) == 1


def test_download_failure_is_a_dataset_error(tmp_path, monkeypatch):
    def broken(url):
        raise OSError("network unreachable")

    monkeypatch.setattr(_fetch, "make_downloader", _fake_downloads(broken))
    with pytest.raises(DatasetError, match="could not download"):
        datasets.load_wdbc(data_home=tmp_path, download=True, progress=False)


def test_movement_download_from_zip(data_home, tmp_path, monkeypatch):
    archive = tmp_path / "MovementAAL.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in (data_home / "movement_aal").rglob("*.csv"):
            zf.write(path, "IndoorMovement/" + str(path.relative_to(data_home / "movement_aal")))
    monkeypatch.setattr(movement_module, "MOVEMENT_AAL_SOURCE",
                        dataclasses.replace(movement_module.MOVEMENT_AAL_SOURCE, url=archive.as_uri()))
    home = tmp_path / "home"
    d = datasets.load_movement_aal(data_home=home, download=True, progress=False)
    assert d.data.shape == (13197, 4)
    assert not list((home / "movement_aal").glob("*.part"))


def test_movement_download_with_bad_member_is_refused(data_home, tmp_path, monkeypatch):
    archive = tmp_path / "MovementAAL.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in (data_home / "movement_aal").rglob("*.csv"):
            rel = str(path.relative_to(data_home / "movement_aal"))
            data = path.read_bytes()
            if rel.endswith("MovementAAL_RSS_5.csv"):
                data = data.replace(b"0", b"1", 1)
            zf.writestr("IndoorMovement/" + rel, data)
    monkeypatch.setattr(movement_module, "MOVEMENT_AAL_SOURCE",
                        dataclasses.replace(movement_module.MOVEMENT_AAL_SOURCE, url=archive.as_uri()))
    with pytest.raises(DatasetError, match="MovementAAL_RSS_5.csv"):
        datasets.load_movement_aal(data_home=tmp_path / "home", download=True, progress=False)


def test_ctg_download_derives_and_verifies_csv(data_home, tmp_path, monkeypatch):
    url = (data_home / "ctg" / "CTG.xls").as_uri()
    monkeypatch.setattr(ctg_module, "CTG_SOURCE", dataclasses.replace(ctg_module.CTG_SOURCE, url=url))
    home = tmp_path / "home"
    d = datasets.load_ctg(data_home=home, download=True, progress=False)
    assert d.data.shape == (2126, 21)
    assert (home / "ctg" / "CTG.xls").is_file()
    assert not list((home / "ctg").glob("*.part"))


def test_lending_club_download_is_explained(tmp_path):
    with pytest.raises(DatasetError, match="not supported"):
        datasets.load_lending_club(data_home=tmp_path, download=True)


def test_uber_download_keeps_the_publishers_csv(data_home, tmp_path, monkeypatch):
    import gzip

    raw = gzip.decompress((data_home / "uber_apr14" / "uber-raw-data-apr14.csv.gz").read_bytes())
    monkeypatch.setattr(_fetch, "make_downloader", _fake_downloads(lambda url: raw))
    d = datasets.load_uber_apr14(data_home=tmp_path, download=True, progress=False,
                                 end="2014-04-01 01:00")
    assert (tmp_path / "uber_apr14" / "uber-raw-data-apr14.csv").is_file()
    assert 0 < d.data.shape[0] < 1000


def test_adult_download_fetches_every_missing_file(data_home, tmp_path, monkeypatch):
    seen = []

    def fake(url):
        seen.append(url.rsplit("/", 1)[1])
        return (data_home / "adult" / seen[-1]).read_bytes()

    monkeypatch.setattr(_fetch, "make_downloader", _fake_downloads(fake))
    d = datasets.load_adult(data_home=tmp_path, split="both", download=True, progress=False)
    assert sorted(seen) == ["adult.data", "adult.names", "adult.test"]
    assert d.data.shape[0] == 32561 + 16281


def test_swarm_download_checks_structure_and_warns(tmp_path, monkeypatch):
    monkeypatch.setattr(swarm_module, "N_ROWS", 4)
    monkeypatch.setattr(swarm_module, "N_FEATURES", 2)
    archive = tmp_path / "swarm.zip"
    body = "a,b,Class\n" + "".join(f"{i}.0,{2 * i}.0,{i % 2}\n" for i in range(4))
    with zipfile.ZipFile(archive, "w") as zf:
        for name in ("Aligned", "Flocking", "Grouped"):
            zf.writestr(f"Swarm Behavior Data/{name}.csv", body)
    monkeypatch.setattr(swarm_module, "SWARM_SOURCE",
                        dataclasses.replace(swarm_module.SWARM_SOURCE, url=archive.as_uri()))
    with pytest.warns(UserWarning, match="no recorded SHA-256"):
        d = datasets.load_swarm(data_home=tmp_path / "home", download=True, progress=False)
    assert d.data.shape == (4, 2) and d.target.tolist() == [0, 1, 0, 1]


def test_downloads_go_through_pooch_with_the_recorded_checksum(data_home, tmp_path, monkeypatch):
    """pooch gets the recorded SHA-256 and the data home as its cache folder."""
    import pooch

    calls = []
    original = pooch.retrieve

    def spy(url, known_hash=None, fname=None, path=None, **kwargs):
        calls.append((url, known_hash, fname, Path(path)))
        return original(url, known_hash=known_hash, fname=fname, path=path, **kwargs)

    monkeypatch.setattr(pooch, "retrieve", spy)
    payload = (data_home / "wdbc" / "wdbc.data").read_bytes()
    monkeypatch.setattr(_fetch, "make_downloader", _fake_downloads(lambda url: payload))
    datasets.load_wdbc(data_home=tmp_path, download=True, progress=False)
    from matrixdp.datasets._checksums import SHA256

    assert calls == [(datasets.wdbc.WDBC_SOURCE.url, "sha256:" + SHA256["wdbc/wdbc.data"],
                      "wdbc.data", tmp_path / "wdbc")]


def test_a_corrupted_download_is_refused_and_not_kept(data_home, tmp_path, monkeypatch):
    payload = (data_home / "wdbc" / "wdbc.data").read_bytes().replace(b"1", b"2", 1)
    monkeypatch.setattr(_fetch, "make_downloader", _fake_downloads(lambda url: payload))
    with pytest.raises(DatasetError, match="refused"):
        datasets.load_wdbc(data_home=tmp_path, download=True, progress=False)
    assert not any(p.is_file() for p in (tmp_path / "wdbc").iterdir())
