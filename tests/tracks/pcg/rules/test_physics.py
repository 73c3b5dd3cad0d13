"""Damage in the evaluator's physics: blocks lose life at each contact, die at 0 and leave the level."""

from __future__ import annotations

from podium.tracks.pcg.rules.physics import BLOCK_GEOMETRY, PhysicsParameters, simulate_run

PARAMS = PhysicsParameters()
TINY = BLOCK_GEOMETRY["SquareTiny"]


def test_one_fall_never_kills_a_block() -> None:
    # linear drag caps a fall at 9.81 × 0.5 / 1 = 4.9 m/s, under a wood block's life of 5
    run = simulate_run([(0.0, 10.0, 0.0, TINY)], PARAMS, [0])
    assert run.starting == 1 and run.moving == 1
    assert len(run.final_poses) == 1


def test_damage_adds_up_over_contacts_and_a_dead_block_leaves_the_level() -> None:
    # a column of 4 dropped together from 6 m: each block's landings on the ground and on each other add up
    column = [(0.0, 3.0 + 0.3 * i, 0.0, TINY) for i in range(4)]
    run = simulate_run(column, PARAMS, [0, 1, 2, 3])
    assert run.starting == 4 and run.moving == 4
    assert len(run.final_poses) < 4  # the dead are removed 0.5 s after they die, so they are not drawn


def test_without_life_to_lose_every_block_dies_after_the_first_step() -> None:
    params = PhysicsParameters(block_life=0.0)
    run = simulate_run([(0.0, 0.0, 0.0, TINY), (1.0, 0.0, 0.0, TINY)], params, [0, 1])
    assert run.final_poses == () and run.moving == 2
