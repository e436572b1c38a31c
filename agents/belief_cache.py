"""Beliefs kept between the decisions of one worker, so that each reads only new events.

An agent in a worker process is rebuilt for every decision (`agents.workers`), and its
beliefs used to be rebuilt with it: every event of the game read again, twice (the
seat's own belief and the table's), on every decision of every AI seat. Late in a
10-player game that is 50-90 ms, taken from the decision's own thinking time: under load,
where nine ballots share a two-second window, it was most of a ballot's share.

A belief is a pure function of the events its seat can see, so a belief that has read a
prefix of a view's visible events can simply read the rest. Within `reused_beliefs()`
(`agents.workers.worker_answer` wraps each decision in it), `belief_after` keeps the
beliefs it built, per thread (a worker process has one; the thread pool of the terminal
and of the tests has several, and a belief is not shared between threads), and hands
back the one whose events are the longest prefix of the view's, brought up to date:

- the table's belief (public events only) is the same for every AI seat of a game, so
  one update serves them all;
- a seat's own belief advances from its previous decision.

Decisions are unchanged: the belief handed back is the one a fresh replay would build
(a test compares them). Only agents built for one decision may use it (the cache keeps
advancing the beliefs it hands out): a long-lived agent, as in the arena, keeps its own.
The beliefs are secrets of live games; nothing here logs them.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from engine import Setup
from engine import events as ev

from .behaviour import Behaviour, Styles, load_styles
from .belief import Belief

# Beliefs kept per thread: a 10-player game needs one per AI seat and one for the table,
# so 256 serve 25 full tables at once; beyond that the oldest are read again from the
# start. 64 (six tables) thrashed at 20 tables: every decision re-read its belief and a
# nomination reached 581 iterations (median) in its window instead of 791 with 256
# (bench/ai_load_bench.py --tables 20, bench/results/README.md). A 10-player belief at
# the end of a game holds about 0.6 MB of tables (measured), so a worker keeps at most
# about 160 MB.
CAPACITY = 256


@dataclass(slots=True)
class _Entry:
    belief: Belief
    model: Behaviour | Styles  # held so that the key's id() stays this object's
    events: tuple[ev.Event, ...]  # the visible events `belief` has read, in order


class BeliefCache:
    """The beliefs one thread built, least recently used first out."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[int, _Entry] = OrderedDict()
        self._next = 0
        self.read = 0  # events read by the beliefs handed out (for tests and benches)

    def belief_after(
        self,
        setup: Setup,
        seat: int | None,
        events: Sequence[ev.Event],
        behaviour: Behaviour | Styles | None = None,
    ) -> Belief:
        """`seat`'s belief (None: the table's) after `events`; yours to read, not to
        keep: a later call may advance it."""
        model = behaviour if behaviour is not None else load_styles(setup.players)
        visible = tuple(e for e in events if e.visible_to(seat))
        best: tuple[int, _Entry] | None = None
        for key, entry in self._entries.items():
            belief = entry.belief
            if belief.seat != seat or belief.setup != setup or entry.model is not model:
                continue
            read = len(entry.events)
            longer = best is None or read > len(best[1].events)
            if longer and read <= len(visible) and visible[:read] == entry.events:
                best = (key, entry)
        if best is None:
            entry = _Entry(Belief(setup, seat, model), model, ())
            key = self._next
            self._next += 1
        else:
            key, entry = best
        for event in visible[len(entry.events) :]:
            entry.belief.update(event)
        self.read += len(visible) - len(entry.events)
        entry.events = visible
        self._entries[key] = entry
        self._entries.move_to_end(key)
        while len(self._entries) > self.capacity:
            self._entries.popitem(last=False)
        return entry.belief

    def clear(self) -> None:
        """Forget every belief."""
        self._entries.clear()


_local = threading.local()


def thread_cache() -> BeliefCache:
    """This thread's cache."""
    cache: BeliefCache | None = getattr(_local, "cache", None)
    if cache is None:
        cache = _local.cache = BeliefCache()
    return cache


@contextlib.contextmanager
def reused_beliefs() -> Iterator[BeliefCache]:
    """Within: agents of this thread built for one decision take their beliefs from the
    thread's cache (`belief_after`)."""
    before = getattr(_local, "reusing", False)
    _local.reusing = True
    try:
        yield thread_cache()
    finally:
        _local.reusing = before


def reusing_beliefs() -> bool:
    """Whether this thread's decisions take their beliefs from its cache now."""
    return bool(getattr(_local, "reusing", False))


def belief_after(
    setup: Setup,
    seat: int | None,
    events: Sequence[ev.Event],
    behaviour: Behaviour | Styles | None = None,
) -> Belief:
    """`seat`'s belief after `events`: from this thread's cache within
    `reused_beliefs()` (see the module doc), else a new one of the caller's own."""
    if reusing_beliefs():
        return thread_cache().belief_after(setup, seat, events, behaviour)
    belief = Belief(setup, seat, behaviour)
    belief.update_all(events)  # it skips what `seat` may not see
    return belief
