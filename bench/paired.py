#!/usr/bin/env python3
# Verdict on paired benchmark rounds: the median of the per-round ratios with
# a distribution-free (sign-test) confidence interval; a target is missed
# only when the whole interval lies past it, so one noisy round cannot fail.
import argparse
import math
import sys


def binom_cdf(k, n):
    """P(X <= k) for X ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n


def median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def interval(v, alpha):
    """Order-statistic interval for the median: each side is past the true
    median with probability <= alpha (one-sided), from the sign test."""
    s = sorted(v)
    n = len(s)
    if binom_cdf(0, n) > alpha:
        return None  # too few rounds for this confidence
    k = 0  # 0-based index of the lower bound: P(X <= k) <= alpha
    while k + 1 < n - 1 - (k + 1) and binom_cdf(k + 1, n) <= alpha:
        k += 1
    return s[k], s[n - 1 - k], 1 - 2 * binom_cdf(k, n)


def verdict(ratios, target, want, alpha):
    """want 'min': ratio must be >= target; 'max': ratio must be <= target.
    Returns (word, median, interval): word is met, noise or missed."""
    m = median(ratios)
    ci = interval(ratios, alpha)
    ok = m >= target if want == "min" else m <= target
    if ok:
        return "met", m, ci
    if ci is None:
        return "noise", m, ci
    lo, hi, _ = ci
    past = hi < target if want == "min" else lo > target
    return ("missed" if past else "noise"), m, ci


def self_test():
    # The landed main's two latency runs: both must not fail.
    assert verdict([0.91, 0.93, 0.95, 0.926, 0.90, 0.94, 0.92], 1.05, "max", 0.05)[0] == "met"
    assert verdict([1.02, 1.10, 1.078, 0.99, 1.12, 1.06, 1.09], 1.05, "max", 0.05)[0] == "noise"
    # Every round past the target: a real miss.
    assert verdict([1.2, 1.25, 1.22, 1.3, 1.21, 1.19, 1.24], 1.05, "max", 0.05)[0] == "missed"
    assert verdict([0.8, 0.82, 0.79, 0.85, 0.81, 0.8, 0.83], 1.00, "min", 0.05)[0] == "missed"
    assert verdict([0.95, 1.01, 0.98, 1.02, 0.97, 0.99, 0.96], 1.00, "min", 0.05)[0] == "noise"
    # n = 7: the 95% one-sided bound is the extreme round; n = 9: the second.
    assert interval(list(range(7)), 0.05)[:2] == (0, 6)
    assert interval(list(range(9)), 0.05)[:2] == (1, 7)
    assert interval([1, 2, 3], 0.05) is None
    print("paired.py self-test: ok")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--label", default="ratio")
    ap.add_argument("--target", type=float)
    ap.add_argument("--want", choices=("min", "max"), help="min: ratio >= target; max: ratio <= target")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("ratios", nargs="*", type=float)
    a = ap.parse_args()
    if a.self_test:
        self_test()
        return 0
    if a.target is None or not a.want or len(a.ratios) < 1:
        ap.error("--target, --want and at least one ratio are needed")
    if any(not math.isfinite(r) or r <= 0 for r in a.ratios):
        print(f"{a.label}: bad ratio in {a.ratios}", file=sys.stderr)
        return 2
    word, m, ci = verdict(a.ratios, a.target, a.want, a.alpha)
    rounds = " ".join(f"{r:.3f}" for r in a.ratios)
    sign = ">=" if a.want == "min" else "<="
    ci_txt = f"[{ci[0]:.3f}, {ci[1]:.3f}] ({ci[2] * 100:.1f}%)" if ci else "n/a (too few rounds)"
    print(f"{a.label}: rounds {rounds}; median x{m:.3f}, interval {ci_txt}; "
          f"target {sign} {a.target:.2f}: {word}")
    return 1 if word == "missed" else 0


if __name__ == "__main__":
    sys.exit(main())
