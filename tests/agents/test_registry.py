"""Agent specs: budgets and each agent's own options, parsed, written back and built."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest

from agents.behaviour import (
    FITTED_PATH,
    STYLE_NAMES,
    default_behaviour,
    load_behaviour,
    load_styles,
    reading_model,
    save_behaviour,
)
from agents.belief_agent import BeliefAgent
from agents.belief_ismcts import DEFAULT_WILD, BeliefISMCTSAgent
from agents.registry import FIT_DIR_VARIABLE, PACKAGE_DIR, AgentSpec, fit_dirs, make_agent
from agents.workers import build_agent, worker_answer
from engine import Game


@pytest.fixture
def fit_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A behaviour fit unlike the shipped one: the hand-set defaults, for every count.

    It lives in a directory the fit option is configured to read (`SHBOT_FIT_DIR`)."""
    monkeypatch.setenv(FIT_DIR_VARIABLE, str(tmp_path))
    path = tmp_path / "fit.json"
    by_players = {n: default_behaviour(n) for n in range(5, 11)}
    save_behaviour(by_players, default_behaviour(), {"note": "test"}, path)
    shipped = load_behaviour(7)
    assert not np.array_equal(shipped.vote_ja, load_behaviour(7, path).vote_ja)
    return path


def test_options_parse_and_write_back(fit_file: Path) -> None:
    text = f"belief-ismcts:iterations=50,wild=0.7,fit={fit_file}"
    spec = AgentSpec.parse(text)
    assert spec.budget.iterations == 50
    assert spec.options == (("wild", "0.7"), ("fit", str(fit_file)))
    assert str(spec) == text and AgentSpec.parse(str(spec)) == spec
    assert spec.settings() == {"wild": 0.7, "fit": fit_file.resolve()}
    assert str(AgentSpec.parse("belief-ismcts:seconds=2")) == "belief-ismcts:seconds=2"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("belief-ismcts:wild=1.5", "a share lies between 0 and 1"),
        ("belief-ismcts:wild=lots", "could not convert"),
        ("belief-ismcts:fit=/no/such/fit.json", "a fit must be a .json file in the agents"),
        ("belief-ismcts:fit=no_such_fit.json", "no behaviour fit at no_such_fit.json"),
        ("ismcts:wild=0.5", "unknown option 'wild'"),  # options belong to their agent
        ("random:fit=x.json", "unknown option 'fit'"),
        ("belief-ismcts:styles=1/2/3", "give 4 style weights (bot/human/chaotic/noise)"),
        ("belief:styles=1/0/1/1", "every style weight is a positive number"),
        ("belief:styles=1/nan/1/1", "every style weight is a positive number"),
        ("belief:styles=a/b/c/d", "style weights are numbers separated by '/'"),
        ("ismcts:styles=1/1/1/1", "unknown option 'styles'"),
    ],
)
def test_bad_options_are_refused_with_the_reason(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match="Bad agent option") as error:
        AgentSpec.parse(text)
    assert reason in str(error.value) and text in str(error.value)


def test_built_agents_use_their_options(fit_file: Path) -> None:
    game = Game(7, seed=3)
    seat = game.awaiting()[0]
    view = game.view(seat)
    variant = make_agent(f"belief-ismcts:iterations=20,wild=0.7,fit={fit_file}", seat, 1)
    shipped = make_agent("belief-ismcts:iterations=20", seat, 1)
    assert isinstance(variant, BeliefISMCTSAgent) and isinstance(shipped, BeliefISMCTSAgent)
    variant.act(view)
    shipped.act(view)
    assert variant.wild == 0.7 and shipped.wild == DEFAULT_WILD
    assert variant.belief is not None and variant.table is not None
    assert variant.belief.behaviour is load_behaviour(7, fit_file.resolve())
    assert variant.table.behaviour is variant.belief.behaviour
    # The shipped belief reads people with the style mixture around the shipped fit.
    assert shipped.belief is not None and shipped.belief.styles is load_styles(7)
    assert FITTED_PATH.exists()  # the shipped fit is a file, so the two really differ

    heuristic = make_agent(f"belief:fit={fit_file}", seat, 1)
    assert isinstance(heuristic, BeliefAgent)
    heuristic.act(view)
    assert heuristic.belief is not None
    assert heuristic.belief.behaviour is load_behaviour(7, fit_file.resolve())


def test_a_style_prior_option_reads_the_table_with_that_mixture(fit_file: Path) -> None:
    # `styles=` lets an A/B try another style prior from main: the mixture around the
    # shipped fit (or `fit=`'s) under the weights given, normalised, one object per
    # setting so the belief cache keeps serving it.
    game = Game(7, seed=3)
    seat = game.awaiting()[0]
    view = game.view(seat)
    spec = AgentSpec.parse("belief-ismcts:iterations=20,styles=5/1/1/3")
    assert spec.settings() == {"styles": (0.5, 0.1, 0.1, 0.3)}
    searcher = spec.build(seat, 1)
    heuristic = make_agent(f"belief:styles=5/1/1/3,fit={fit_file}", seat, 1)
    assert isinstance(searcher, BeliefISMCTSAgent) and isinstance(heuristic, BeliefAgent)
    searcher.act(view)
    heuristic.act(view)
    assert searcher.belief is not None and searcher.table is not None
    styles = searcher.belief.styles
    assert styles is searcher.table.styles and styles.prior != load_styles(7).prior
    assert styles.prior == (0.5, 0.1, 0.1, 0.3) and styles.names == STYLE_NAMES
    assert styles is reading_model(7, None, (0.5, 0.1, 0.1, 0.3))
    bot = styles.behaviours[0]
    assert np.array_equal(bot.vote_ja, load_styles(7).behaviours[0].vote_ja)
    assert heuristic.belief is not None and heuristic.belief.styles.prior == styles.prior
    around_fit = heuristic.belief.styles.behaviours[0]
    assert np.array_equal(around_fit.vote_ja, load_behaviour(7, fit_file.resolve()).vote_ja)
    assert reading_model(7) is None  # no option: the shipped mixture


def test_a_worker_rebuilds_the_agent_with_its_options(fit_file: Path) -> None:
    # The service's workers rebuild agents from the spec string: the options must
    # survive the seconds cap it adds, or the worker would play the shipped agent.
    game = Game(6, seed=5)
    seat = game.awaiting()[0]
    view = game.view(seat)
    spec = f"belief-ismcts:iterations=30,wild=0.9,fit={fit_file}"
    due = time.monotonic() + 5.0
    assert worker_answer("act", spec, view, 4, due)[0] == make_agent(spec, seat, 4).act(view)
    rebuilt = build_agent(spec, seat, 4, due)
    assert isinstance(rebuilt, BeliefISMCTSAgent)
    assert rebuilt.wild == 0.9 and rebuilt.fit == fit_file.resolve()
    assert rebuilt.budget.deadline == due and rebuilt.budget.iterations == 30
    assert rebuilt.budget.seconds is not None and 4.0 < rebuilt.budget.seconds <= 5.0


def test_salvage_drops_only_what_no_longer_reads(fit_file: Path) -> None:
    stored = f"belief-ismcts:iterations=50,wild=0.7,fit={fit_file}"
    assert AgentSpec.salvage(stored, "selfish") == (AgentSpec.parse(stored), None)
    fit_file.unlink()  # the host removed the fit since the game was stored
    spec, reason = AgentSpec.salvage(stored, "selfish")
    assert spec == AgentSpec.parse("belief-ismcts:iterations=50,wild=0.7")
    assert reason is not None and "no behaviour fit" in reason
    # An agent that is gone altogether: the fallback, and if that is bad too, random.
    assert AgentSpec.salvage("oracle:iterations=5", "selfish")[0] == AgentSpec("selfish")
    assert AgentSpec.salvage("oracle", "oracle")[0] == AgentSpec("random")
    # An agent that reads but no longer imports (a missing dependency): the fallback.
    spec, reason = AgentSpec.salvage("belief:seconds=2", "selfish", lambda n: n != "belief")
    assert spec == AgentSpec("selfish") and reason == "agent 'belief' is not available"
    assert AgentSpec.salvage("selfish", "belief", lambda n: n != "belief") == (
        AgentSpec("selfish"),
        None,
    )
    # A fit path that cannot even be checked is a reason, not a crash.
    with pytest.raises(ValueError, match="behaviour fit"):
        AgentSpec.parse("belief:fit=~no_such_user_here/fit.json")


# --- fit files: only the project's own, unless a directory is configured -------------


@pytest.fixture
def outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A valid fit in a directory nobody configured."""
    monkeypatch.delenv(FIT_DIR_VARIABLE, raising=False)
    path = tmp_path / "elsewhere" / "fit.json"
    path.parent.mkdir()
    save_behaviour({7: default_behaviour(7)}, default_behaviour(), {}, path)
    return path


def test_the_shipped_fit_reads_by_name_or_by_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(FIT_DIR_VARIABLE, raising=False)
    assert fit_dirs() == [PACKAGE_DIR]
    for written in ("behaviour_fitted.json", str(FITTED_PATH)):
        assert AgentSpec.parse(f"belief:fit={written}").settings() == {"fit": FITTED_PATH}
    monkeypatch.chdir(PACKAGE_DIR.parent)  # from the repository root, as in the README
    spec = AgentSpec.parse("belief:fit=agents/behaviour_fitted.json")
    assert spec.settings() == {"fit": FITTED_PATH}


def refusal(text: str) -> str:
    with pytest.raises(ValueError, match="Bad agent option") as error:
        AgentSpec.parse(text)
    return str(error.value)


def test_a_fit_anywhere_else_on_the_machine_is_refused(outside: Path) -> None:
    not_ours = "a fit must be a .json file in the agents package or in a directory listed"
    for path in (outside, outside.parent / "missing.json", Path("/etc/passwd")):
        message = refusal(f"belief:fit={path}")
        assert not_ours in message and FIT_DIR_VARIABLE in message
    # Whether the file exists is not revealed: the same reason either way.
    assert refusal(f"belief:fit={outside}").replace(str(outside), "X") == refusal(
        f"belief:fit={outside.parent / 'missing.json'}"
    ).replace(str(outside.parent / "missing.json"), "X")
    traversal = "../" * 12 + str(outside).lstrip("/")
    assert not_ours in refusal(f"belief-ismcts:fit={traversal}")
    assert not_ours in refusal("belief:fit=registry.py")  # in the package, but not a fit
    assert not_ours in refusal("belief:fit=~/fit.json")


def test_a_link_in_an_allowed_directory_cannot_lead_out(
    outside: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    allowed = tmp_path / "fits"
    allowed.mkdir()
    (allowed / "link.json").symlink_to(outside)
    monkeypatch.setenv(FIT_DIR_VARIABLE, str(allowed))
    assert "a fit must be a .json file" in refusal(f"belief:fit={allowed / 'link.json'}")
    refusal("belief:fit=link.json")  # by name: found nowhere it may be read


def test_configured_directories_are_read(
    outside: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    monkeypatch.setenv(FIT_DIR_VARIABLE, f"{other}{os.pathsep}{outside.parent}")
    assert fit_dirs() == [PACKAGE_DIR, other.resolve(), outside.parent.resolve()]
    for written in (str(outside), "fit.json"):  # by path, or by name in a fit directory
        spec = AgentSpec.parse(f"belief:fit={written}")
        assert spec.settings() == {"fit": outside.resolve()}
    seat = Game(7, seed=3).awaiting()[0]
    agent = make_agent(f"belief:fit={outside}", seat, 1)
    assert isinstance(agent, BeliefAgent)


def test_a_stored_fit_no_longer_allowed_is_salvaged(
    outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Stored while the directory was configured; the bot restarts without it.
    monkeypatch.setenv(FIT_DIR_VARIABLE, str(outside.parent))
    stored = f"belief-ismcts:iterations=50,fit={outside}"
    assert AgentSpec.salvage(stored, "selfish") == (AgentSpec.parse(stored), None)
    monkeypatch.delenv(FIT_DIR_VARIABLE)
    spec, reason = AgentSpec.salvage(stored, "selfish")
    assert spec == AgentSpec.parse("belief-ismcts:iterations=50")
    assert reason is not None and FIT_DIR_VARIABLE in reason
    assert AgentSpec.salvage(f"belief:fit={outside}", "selfish") == (
        AgentSpec("belief"),
        reason.replace("belief-ismcts:iterations=50,", "belief:"),
    )
