"""RLlib (new API stack) on every game, with the real library: the turn-based MultiAgentEnv, the illegal-action
count, masked sampling, one PPO self-play iteration per game, and the example's train-checkpoint-evaluate run."""
import runpy
from pathlib import Path

import numpy as np
import pytest
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
from ray.rllib.env.multi_agent_episode import MultiAgentEpisode
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

import quando_env
from quando_env.agents import make_agent
from quando_env.agents.rllib_agent import RLlibAgent
from quando_env.integrations import rllib

GAMES = quando_env.game_names()
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "rllib_selfplay.py"
pytestmark = pytest.mark.xdist_group("ray")


def legal(obs, rng) -> int:
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


def play(env, seed, episode=None, rng_seed=0):
    """One game with random legal actions, every step checked against the turn-based contract and logged
    into `episode` (RLlib's MultiAgentEpisode validates it). Returns (per-agent reward sums, rewards that
    fell to an agent on another agent's move, the last step's flags)."""
    rng = np.random.default_rng(rng_seed)
    obs, infos = env.reset(seed=seed)
    if episode is not None:
        episode.add_env_reset(observations=obs, infos=infos)
    sums = dict.fromkeys(env.possible_agents, 0.0)
    off_turn = 0
    while True:
        assert list(obs) == [env.to_move()]          # only the seat to move observes
        (mover, ob), = obs.items()
        assert set(ob) == {"observations", "action_mask"} and env.observation_spaces[mover].contains(ob)
        np.testing.assert_array_equal(ob["observations"], env.aec.observe(f"player_{mover}")["observation"])
        action = {mover: legal(ob, rng)}
        obs, rewards, terminateds, truncateds, infos = env.step(action)
        assert set(rewards) == set(env.possible_agents)
        for agent, r in rewards.items():
            sums[agent] += r
            off_turn += agent != mover and r != 0
        if episode is not None:
            episode.add_env_step(obs, action, rewards, infos, terminateds=terminateds, truncateds=truncateds)
        if terminateds["__all__"] or truncateds["__all__"]:
            return sums, off_turn, obs, terminateds, truncateds


@pytest.mark.parametrize("game", GAMES)
def test_env_turns_rewards_and_end(game):
    env = rllib.make_env(game, reward="win")
    episode = MultiAgentEpisode(observation_space=env.observation_spaces, action_space=env.action_spaces)
    sums, off_turn, obs, terminateds, truncateds = play(env, seed=3, episode=episode)
    # The game ended for everyone: each agent gets its last observation, with no legal move.
    assert terminateds == {**dict.fromkeys(env.possible_agents, True), "__all__": True}
    assert truncateds == {**dict.fromkeys(env.possible_agents, False), "__all__": False}
    assert set(obs) == set(env.possible_agents) and all(o["action_mask"].sum() == 0 for o in obs.values())
    # reward="win": +1 to each winner, -1 to the others, most of it falling on another agent's move.
    assert sums == {seat: 1.0 if won else -1.0 for seat, won in enumerate(env.aec.game.winners()[0])}
    assert off_turn >= len(env.possible_agents) - 1
    # RLlib's episode credits every agent with exactly these returns.
    assert episode.is_terminated
    assert {a: episode.agent_episodes[a].get_return() for a in env.possible_agents} == sums


@pytest.mark.parametrize("game", GAMES)
def test_env_truncation_gives_every_agent_its_last_observation(game):
    env = rllib.make_env(game, max_steps=10)
    episode = MultiAgentEpisode(observation_space=env.observation_spaces, action_space=env.action_spaces)
    _, _, obs, terminateds, truncateds = play(env, seed=1, episode=episode)   # RLlib raises without them
    assert truncateds["__all__"] and not terminateds["__all__"] and set(obs) == set(env.possible_agents)
    assert episode.is_truncated and episode.env_t == 10


def test_env_raises_on_illegal_action_and_wrong_mover():
    env = rllib.make_env("cabo")
    obs, _ = env.reset(seed=0)
    (mover, ob), = obs.items()
    illegal = int(np.flatnonzero(ob["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="not legal|illegal"):
        env.step({mover: illegal})
    other = next(a for a in env.possible_agents if a != mover)
    with pytest.raises(ValueError, match=f"seat {mover} is to move"):
        env.step({other: legal(ob, np.random.default_rng(0))})


@pytest.mark.parametrize("game", GAMES)
def test_env_refuses_non_integer_actions_naming_them_and_changes_nothing(game):
    env = rllib.make_env(game)
    obs, _ = env.reset(seed=1)
    (mover, ob), = obs.items()
    a = legal(ob, np.random.default_rng(1))
    n = len(ob["action_mask"])

    def seen():
        raw = env.aec
        return (raw.agent_selection, raw.game.states.tobytes(), raw.game.masks.tobytes(), str(raw.game_record()),
                [env.observe(s)["observations"].tobytes() for s in env.possible_agents])
    before = seen()
    for bad in (float(a), np.float32(a), str(a), True, None, [a]):
        with pytest.raises(ValueError, match=rf"action=.* is not allowed: one integer 0\.\.{n - 1}|action=None"):
            env.step({mover: bad})
        assert seen() == before
    for bad in ([(mover, a)], {mover: a, "__all__": a}):
        with pytest.raises(ValueError, match=f"seat {mover} is to move: give exactly its action"):
            env.step(bad)
        assert seen() == before
    env.step({mover: np.int16(a)})
    assert env.aec.game_record()["actions"] == [a]


def test_env_seeded_once_is_reproducible():
    """A seed given once seeds the later games too (RLlib seeds only the first reset)."""
    def firsts(env):
        return [env.reset(seed=5 if k == 0 else None)[0] for k in range(3)]
    a, b = firsts(rllib.make_env("help")), firsts(rllib.make_env("help"))
    for oa, ob in zip(a, b):
        assert list(oa) == list(ob)
        np.testing.assert_array_equal(*(next(iter(o.values()))["observations"] for o in (oa, ob)))
    assert any(not np.array_equal(next(iter(a[0].values()))["observations"],
                                  next(iter(o.values()))["observations"]) for o in a[1:])


def test_bad_game_and_options_fail_before_ray():
    with pytest.raises(ValueError, match="unknown game"):
        rllib.ppo_config("poker")
    with pytest.raises(ValueError, match="num_players=99 is not allowed"):
        rllib.ppo_config("cabo", num_players=99)
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['colour'\]"):
        rllib.ppo_config("help", colour="red")


def test_register_names_every_game():
    assert rllib.register() == [f"{g}_v0" for g in GAMES]
    assert [rllib.ppo_config(g).env for g in GAMES] == [f"{g}_v0" for g in GAMES]


def test_illegal_action_count_reads_actions_against_masks():
    """A planted illegal action in a real RLlib episode is counted (the env itself would refuse it, so the
    episode records a legal step of the env under the illegal action's name)."""
    env = rllib.make_env("quando")
    rng = np.random.default_rng(0)
    episode = MultiAgentEpisode(observation_space=env.observation_spaces, action_space=env.action_spaces)
    obs, infos = env.reset(seed=0)
    episode.add_env_reset(observations=obs, infos=infos)
    for t in range(6):
        (mover, ob), = obs.items()
        action = legal(ob, rng)
        recorded = int(np.flatnonzero(ob["action_mask"] == 0)[0]) if t == 2 else action
        obs, rewards, te, tr, infos = env.step({mover: action})
        episode.add_env_step(obs, {mover: recorded}, rewards, infos, terminateds=te, truncateds=tr)
    assert rllib.count_illegal_actions([episode]) == 1
    episode.to_numpy()                      # as EnvRunner.sample() returns them
    assert rllib.count_illegal_actions([episode]) == 1


class UnmaskedModule(ActionMaskingTorchRLModule):
    """A planted masking failure: the logits are left unmasked."""

    def _mask_action_logits(self, batch, action_mask):
        return batch


def sampler(module_class, **config):
    """RLlib's own env runner (in this process, env made by its registered name) with the shared policy
    built from `module_class`."""
    cfg = rllib.ppo_config("cabo", **config).rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
        rllib.POLICY: RLModuleSpec(module_class=module_class, model_config={"fcnet_hiddens": [16]})}))
    return MultiAgentEnvRunner(config=cfg)


def test_masked_sampling_is_legal_and_a_broken_mask_fails():
    runner = sampler(ActionMaskingTorchRLModule, num_players=3)
    assert runner.env.envs[0].unwrapped.possible_agents == [0, 1, 2]
    episodes = runner.sample(num_timesteps=300)
    assert sum(len(sa) for e in episodes for sa in e.agent_episodes.values()) >= 250
    assert rllib.count_illegal_actions(episodes) == 0
    runner.stop()
    broken = sampler(UnmaskedModule)
    with pytest.raises(RuntimeError) as err:      # the env's ValueError, raised through the env runner
        broken.sample(num_timesteps=300)
    assert isinstance(err.value.__cause__, ValueError)
    broken.stop()


@pytest.mark.parametrize("game", GAMES)
def test_ppo_selfplay_trains_one_iteration(game, ray_local):
    # RLlib gives up on a sample after 60 s by default; a worker that compiles the game's kernels on a loaded
    # machine took longer (then `result` has no env_runners).
    algo = rllib.ppo_config(game).env_runners(sample_timeout_s=600).build_algo()
    try:
        result = algo.train()
    finally:
        algo.stop()
    runners = result["env_runners"]
    assert runners[rllib.ILLEGAL_ACTIONS] == 0
    assert runners["num_env_steps_sampled"] >= 512
    assert set(runners["num_module_steps_sampled"]) == {rllib.POLICY}       # every seat plays the one policy
    assert set(runners["num_agent_steps_sampled"]) == {"0", "1", "2", "3"}     # the metrics name seats as text
    assert result["learners"][rllib.POLICY]["num_module_steps_trained"] > 0


def test_selfplay_example_trains_checkpoints_and_evaluates(ray_local, tmp_path, capsys):
    main = runpy.run_path(str(EXAMPLE))["main"]
    rates = main(["--game", "help", "--iterations", "1", "--checkpoint-dir", str(tmp_path / "ck"), "--eval-games", "8"])
    out = capsys.readouterr().out
    assert "iteration 1: mean return per seat" in out and "illegal actions 0" in out
    assert f"win rates: against random {rates['random']:.3f}, against heuristic {rates['heuristic']:.3f}" in out
    assert set(rates) == {"random", "heuristic"} and all(0.0 <= r <= 1.0 for r in rates.values())
    # The checkpoint plays as an agent: legal actions on a batch of real observations.
    agent = make_agent(f"rllib:{tmp_path / 'ck'}", game="help")
    assert isinstance(agent, RLlibAgent)
    game = quando_env.help_v0.VectorGame(5, seed=0)
    actions = agent.act(game.observe(), game.legal_action_mask)
    assert actions.shape == (5,) and game.legal_action_mask[np.arange(5), actions].all()
    assert ray_local.is_initialized()           # the example left the session's Ray running
    with pytest.raises(FileNotFoundError, match="no module 'shared'"):
        RLlibAgent(str(tmp_path))


def test_checkpoint_loaders_say_to_load_only_files_you_trust():
    """An RLlib checkpoint (rllib:PATH) and an SB3 zip (ppo:PATH) are unpickled when loaded, which runs any code
    they hold: every place that loads one says so."""
    from quando_env.agents.ppo import PPOAgent

    for loader in (rllib.load_policy, RLlibAgent, PPOAgent):
        doc = " ".join(loader.__doc__.split())
        assert "only" in doc and "you trust" in doc and "unpickle" in doc, loader
    assert "load only files you trust" in " ".join(rllib.__doc__.split())
