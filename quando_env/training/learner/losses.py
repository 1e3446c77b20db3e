"""The losses, one per method and phase: what an update minimizes (`loss_function` picks one).

Each takes (hp, policy outputs, values, masks, actions, old log-probabilities, advantages, returns) of a
minibatch and returns its parts by name, "loss/total" the one minimized (the others are logged).
"""
import math

import torch

from .net import dense, policy_terms


def ppo_loss(hp, logits, value, masks, acts, old_logp, adv, ret) -> dict:
    """PPO: the clipped policy loss, an entropy bonus and the value loss."""
    v_loss = 0.5 * ((value - ret) ** 2).mean()
    logp, entropy, _ = policy_terms(logits, masks, acts)
    log_ratio = logp - old_logp
    ratio = log_ratio.exp()
    pg = torch.max(-adv * ratio, -adv * ratio.clamp(1 - hp.clip, 1 + hp.clip)).mean()
    out = {"loss/value": v_loss, "loss/entropy": entropy, "loss/policy": pg,
           "loss/total": pg - hp.ent_coef * entropy + hp.vf_coef * v_loss}
    with torch.no_grad():
        out["loss/approx_kl"] = ((ratio - 1) - log_ratio).mean()
        out["loss/clip_fraction"] = ((ratio - 1).abs() > hp.clip).float().mean()
    return out


def imitation_loss(hp, logits, value, masks, acts, old_logp, adv, ret) -> dict:
    """A policy's warm start: cross-entropy toward the teacher's moves (acts), and the value loss."""
    v_loss = 0.5 * ((value - ret) ** 2).mean()
    logp, entropy, top = policy_terms(logits, masks, acts)
    imitation = -logp.mean()
    return {"loss/value": v_loss, "loss/entropy": entropy, "loss/imitation": imitation,
            "loss/imitation_accuracy": top.float().mean(),
            "loss/total": imitation + hp.vf_coef * v_loss}


def dmc_loss(hp, logits, value, masks, acts, old_logp, adv, ret) -> dict:
    """Deep Monte-Carlo: the chosen action's value (the policy output) fitted to the return, and the value loss."""
    v_loss = 0.5 * ((value - ret) ** 2).mean()
    q = dense(logits).gather(1, acts[:, None]).squeeze(1)
    q_loss = 0.5 * ((q - ret) ** 2).mean()
    return {"loss/value": v_loss, "loss/q": q_loss, "loss/total": q_loss + hp.vf_coef * v_loss}


def dmc_imitation_loss(hp, logits, value, masks, acts, old_logp, adv, ret) -> dict:
    """An action-value warm start: `dmc_loss` on the teacher's moves plus DQfD's large margin (fitting the
    teacher's moves alone leaves the other moves' values arbitrary, and the greedy move one of them): every
    other legal move valued at least `margin` below the teacher's."""
    logits = dense(logits)
    v_loss = 0.5 * ((value - ret) ** 2).mean()
    q = logits.gather(1, acts[:, None]).squeeze(1)
    q_loss = 0.5 * ((q - ret) ** 2).mean()
    out = {"loss/value": v_loss, "loss/q": q_loss, "loss/total": q_loss + hp.vf_coef * v_loss}
    legal = logits.masked_fill(~masks, -math.inf)
    rival = (legal + hp.margin).scatter(1, acts[:, None], q[:, None]).max(1).values
    out["loss/margin"] = (rival - q).mean()
    out["loss/imitation_accuracy"] = (legal.argmax(1) == acts).float().mean()
    out["loss/total"] = out["loss/total"] + out["loss/margin"]
    return out


LOSSES = {("ppo", False): ppo_loss, ("ppo", True): imitation_loss, ("dmc", False): dmc_loss,
          ("dmc", True): dmc_imitation_loss}


def loss_function(method: str, imitating: bool):
    """The loss of a method ("ppo" or "dmc"), in its warm start (imitating) or after."""
    return LOSSES[method, bool(imitating)]
