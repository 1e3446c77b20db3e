"""Training: what makes the agents of quando_env.agents, and nothing they need to play.

- `learner`: the batched self-play learner (train.py's default; `python -m quando_env.training.learner`), its
  models played by quando_env.agents.learned;
- `sb3`: MaskablePPO of Stable-Baselines3 (`train.py --algo sb3`; `python -m quando_env.training.sb3`);
- `distill`: label decisions with a teacher and fit the learner's network to them (`python -m
  quando_env.training.distill`);
- `credit`: the win-probability model of the learner's round credit (`python -m quando_env.training.credit`);
- `sparse`: the learner's first layer on the observations' nonzeros;
- `budget`: what a trainer's --seconds holds to (evaluations that end by a deadline).

Training reads the players (quando_env.agents) and measures them with quando_env.evaluation; neither imports
training.
"""
