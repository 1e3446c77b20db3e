"""Adapters written once over the game contract (quando_env.core): PettingZoo AEC, Gymnasium single-agent
and vector envs, the SB3 VecEnv, opponents of the training envs, and game records."""
