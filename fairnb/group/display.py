"""Rich display of TestSGD results: an HTML table for notebooks and a bar chart of scores with error bars.

Both read ``result.frame`` (see ``fairnb.group.result``); every string that reaches HTML is escaped.
"""
from __future__ import annotations

import html

from ..html_frames import scroll_frame
from ..plot_text import plot_text


def compared_decision(result) -> str:
    """The decision whose rate TestSGD compares (its ``favourable`` label), by its class name when known: on
    a toxicity or stereotype corpus that decision is no favour ("negative stereotype"), so the display
    names it instead of calling it favourable."""
    fav = result.params.get("favourable", 1)
    names = result.info.get("class_names")
    return str(names[fav]) if names and 0 <= fav < len(names) else f"class {fav}"


def _support_note(result) -> str | None:
    """Why every term of a text category shows the same support (TestSGD's Eq. 3 is category-level)."""
    if set((result.info.get("kinds") or {}).values()) != {"terms"}:
        return None
    return ("Support is the share of training texts that hold some term of each of the rule set's categories "
            "(TestSGD's Eq. 3), so every term of one category shows the same support; the in-group texts "
            "are made by putting the rule's term in place of the category's terms.")


def html_table(result, rows: int = 20) -> str:
    """The ``rows`` best rule sets as an HTML table, with an inline bar per score and its bound."""
    info = result.info
    head = (f"TestSGD: {len(result):,} rule sets scored (of {info.get('n_frequent', '?'):,} frequent, "
            f"{info.get('n_candidates', '?'):,} candidates) in {result.elapsed:.1f} s; "
            f"score bounds hold at {result.confidence ** 2:.2%} confidence")
    if info.get("status") == "stopped":
        head += " (stopped early)"
    aliases = info.get("aliases") or {}
    decision = compared_decision(result)
    cols = (("rank", "right"), ("group (rule set)", "left"), ("support", "right"),
            (f"{decision}: in group", "right"), (f"{decision}: outside", "right"), ("score ± bound", "right"),
            ("(bar: score, line: bound)", "left"), ("samples per side", "right"))
    body = []
    for rank, r in result.frame.head(rows).iterrows():
        lo, hi = max(r.score - r.eps, 0.0), min(r.score + r.eps, 1.0)
        bar = (f"<div style='position:relative;width:120px;height:10px;background:#eee'>"
               f"<div style='position:absolute;left:0;width:{100 * r.score:.1f}%;height:100%;background:#d9534f'></div>"
               f"<div style='position:absolute;left:{100 * lo:.1f}%;width:{100 * (hi - lo):.1f}%;top:4px;"
               f"height:2px;background:#333'></div></div>")
        same = aliases.get(r.rule_set, [])
        group = html.escape(str(r.rule_set)) + (
            f"<br><small title='{html.escape('; '.join(same))}'>+ {len(same)} near-identical rule set(s)</small>"
            if same else "")
        cells = (f"{rank}", group, f"{r.support:.1%}", f"{r.phi_in:.1%}", f"{r.phi_out:.1%}",
                 f"<b>{r.score:.1%}</b> &plusmn; {r.eps:.1%}", bar, f"{int(r.n):,}")
        wrap = ["nowrap", "normal"] + ["nowrap"] * (len(cols) - 2)      # the rule set wraps, the numbers do not
        body.append("<tr>" + "".join(f"<td style='text-align:{align};white-space:{w}'>{c}</td>"
                                     for c, (_, align), w in zip(cells, cols, wrap)) + "</tr>")
    header = "".join(f"<th style='text-align:{align}'>{html.escape(c)}</th>" for c, align in cols)
    more = f"<p>First {min(rows, len(result))} of {len(result):,} rule sets.</p>" if len(result) > rows else ""
    skipped = info.get("skipped") or []
    notes = [f"score = |P(the model decides {decision} | in group) - P(the model decides {decision} | outside)|, "
             "the bound its error at the confidence above."]
    if _support_note(result):
        notes.append(_support_note(result))
    if skipped:
        notes.append(f"{len(skipped):,} frequent rule set(s) not scored: the records outside it are below the "
                     f"support threshold (theta = {result.params.get('theta', '?')}) or none, so a score would "
                     f"compare the group with a handful of records (e.g. {skipped[0]}).")
    if aliases:
        n = sum(len(v) for v in aliases.values())
        kept, same = next(iter(aliases.items()))
        notes.append(f"{n:,} near-identical rule set(s) ranked once: each selects almost the same records as "
                     f"one shown (e.g. {same[0]} selects almost the same records as {kept}).")
    legend, note = (f"<p>{html.escape(t)}</p>" for t in (notes[0], " ".join(notes[1:])))
    table = scroll_frame(f"<table><thead><tr>{header}</tr></thead><tbody>{''.join(body)}</tbody></table>")
    return f"<div class='fairnb-groups'><b>{html.escape(head)}</b>{legend}{table}{more}{note}</div>"


def plot_scores(result, ax=None, top: int = 15):
    """Horizontal bars of the ``top`` scores, best at the top, with the error bound as error bars."""
    import matplotlib.pyplot as plt

    f = result.frame.head(top)
    if ax is None:
        ax = plt.subplots(figsize=(7, 0.35 * len(f) + 1.2), facecolor="white")[1]   # readable on dark themes
    y = list(range(len(f)))[::-1]
    ax.barh(y, f["score"], xerr=f["eps"], color="#d9534f", ecolor="#333", capsize=3)
    ax.set_yticks(y)
    ax.set_yticklabels([plot_text(t) for t in f["rule_set"]], fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_xlabel(f"group fairness score |P(d | in) - P(d | out)|, d: the model decides {compared_decision(result)}\n"
                  f"(bars: bound at {result.confidence ** 2:.2%})")
    ax.set_title(f"TestSGD: top {len(f)} of {len(result)} rule sets")
    return ax
