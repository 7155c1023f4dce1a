"""Rich display of TestSGD results: an HTML table for notebooks and a bar chart of scores with error bars.

Both read ``result.frame`` (see ``fairnb.group.result``); every string that reaches HTML is escaped.
"""
from __future__ import annotations

import html


def html_table(result, rows: int = 20) -> str:
    """The ``rows`` best rule sets as an HTML table, with an inline bar per score and its bound."""
    info = result.info
    head = (f"TestSGD: {len(result)} rule sets scored (of {info.get('n_frequent', '?')} frequent, "
            f"{info.get('n_candidates', '?')} candidates) in {result.elapsed:.1f} s; "
            f"score bounds hold at {result.confidence ** 2:.2%} confidence")
    if info.get("status") == "stopped":
        head += " (stopped early)"
    body = []
    for rank, r in result.frame.head(rows).iterrows():
        lo, hi = max(r.score - r.eps, 0.0), min(r.score + r.eps, 1.0)
        bar = (f"<div style='position:relative;width:120px;height:10px;background:#eee'>"
               f"<div style='position:absolute;left:0;width:{100 * r.score:.1f}%;height:100%;background:#d9534f'></div>"
               f"<div style='position:absolute;left:{100 * lo:.1f}%;width:{100 * (hi - lo):.1f}%;top:4px;"
               f"height:2px;background:#333'></div></div>")
        body.append(
            f"<tr><td>{rank}</td><td style='text-align:left'>{html.escape(str(r.rule_set))}</td>"
            f"<td>{r.support:.1%}</td><td>{r.phi_in:.1%}</td><td>{r.phi_out:.1%}</td>"
            f"<td><b>{r.score:.1%}</b> &plusmn; {r.eps:.1%}</td><td>{bar}</td><td>{int(r.n)}</td></tr>")
    cols = ("rank", "group (rule set)", "support", "favourable in group", "favourable outside", "score",
            "", "samples/side")
    header = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    more = f"<p>First {min(rows, len(result))} of {len(result)} rule sets.</p>" if len(result) > rows else ""
    skipped = info.get("skipped") or []
    note = (f"<p>{len(skipped)} frequent rule set(s) skipped: no training record outside the group.</p>"
            if skipped else "")
    return (f"<div class='fairnb-groups'><b>{html.escape(head)}</b><table><thead><tr>{header}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>{more}{note}</div>")


def plot_scores(result, ax=None, top: int = 15):
    """Horizontal bars of the ``top`` scores, best at the top, with the error bound as error bars."""
    import matplotlib.pyplot as plt

    f = result.frame.head(top)
    if ax is None:
        ax = plt.subplots(figsize=(7, 0.35 * len(f) + 1.2))[1]
    y = list(range(len(f)))[::-1]
    ax.barh(y, f["score"], xerr=f["eps"], color="#d9534f", ecolor="#333", capsize=3)
    ax.set_yticks(y)
    ax.set_yticklabels(f["rule_set"], fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_xlabel(f"group fairness score |P(fav | in) - P(fav | out)| (bars: bound at {result.confidence ** 2:.2%})")
    ax.set_title(f"TestSGD: top {len(f)} of {len(result)} rule sets")
    return ax
