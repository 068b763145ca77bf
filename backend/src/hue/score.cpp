// HUE scores (seed paper Appendix F, eqs. 12-13), intervals and annotator agreement, from label rows (hue.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "worldstudio/hue/project.h"

namespace ws::hue {

namespace {
constexpr double kZ = 1.96;

std::string fmt(double v, int digits = 1) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}
}  // namespace

std::pair<double, double> Score::ci95() const {
    if (n == 0) return {0, 0};
    const double p = static_cast<double>(yes) / static_cast<double>(n);
    const double half = 100.0 * kZ * std::sqrt(p * (1 - p) / static_cast<double>(n));
    // The normal approximation runs past 0 and 100 for small N or extreme p; a score cannot.
    return {std::max(0.0, hue() - half), std::min(100.0, hue() + half)};
}

std::pair<double, double> Score::wilson95() const {
    if (n == 0) return {0, 0};
    const double N = static_cast<double>(n), p = static_cast<double>(yes) / N, z2 = kZ * kZ;
    const double centre = (p + z2 / (2 * N)) / (1 + z2 / N);
    const double half = kZ * std::sqrt(p * (1 - p) / N + z2 / (4 * N * N)) / (1 + z2 / N);
    return {100.0 * (centre - half), 100.0 * (centre + half)};
}

std::optional<Answer> final_label(const LabelRow& row) {
    if (row.adjudicated) return row.adjudicated;
    if (row.answers.size() < 2) return std::nullopt;
    for (const auto& a : row.answers)
        if (a.second != row.answers.front().second) return std::nullopt;
    return row.answers.front().second;
}

Scores score(const std::vector<LabelRow>& rows, double gold_threshold) {
    struct Acc {
        Score overall;
        std::map<Dimension, Score> dims;
        std::map<std::string, Score> subcategories, domains, modes;
    };
    // Gold items: every annotator's answer against the known one (Unclear is not the known answer), in the order
    // annotators first appear.
    std::vector<GoldAccuracy> gold;
    auto gold_of = [&gold](const std::string& annotator) -> GoldAccuracy& {
        for (GoldAccuracy& g : gold)
            if (g.annotator == annotator) return g;
        gold.push_back({annotator, {}, false});
        return gold.back();
    };
    std::map<std::string, Acc> models;
    // Agreement: the first two annotators of each item (annotator order) as Cohen's raters A and B.
    struct Pairs {
        int64_t n = 0, agreed = 0;
        int64_t a[3] = {0, 0, 0}, b[3] = {0, 0, 0};
    };
    std::map<Dimension, Pairs> pairs;
    Scores out;
    out.gold_threshold = gold_threshold;
    auto add = [](Score& s, bool yes) { s.n += 1, s.yes += yes ? 1 : 0; };
    for (const LabelRow& r : rows) {
        if (r.gold)
            for (const auto& [annotator, a] : r.answers) add(gold_of(annotator).correct, a == *r.gold);
        if (r.answers.size() >= 2) {
            Pairs& p = pairs[r.dimension];
            const int x = static_cast<int>(r.answers[0].second), y = static_cast<int>(r.answers[1].second);
            p.n += 1, p.agreed += x == y ? 1 : 0, p.a[x] += 1, p.b[y] += 1;
        }
        // A gold item is a control: it measures the annotators (above), not the model that made the video. Its known
        // answer need not be the desired outcome (the simulator's questions are true or false), so scoring it would
        // rank the control itself.
        if (r.gold) continue;
        Acc& m = models[r.model];  // a model with no final label yet is still listed (n 0)
        const auto label = final_label(r);
        if (!label) {
            ++out.pending;
            continue;
        }
        const bool yes = *label == Answer::Yes;
        add(m.overall, yes);
        add(m.dims[r.dimension], yes);
        if (!r.subcategory.empty())
            add(m.subcategories[std::string(dimension_name(r.dimension)) + " / " + r.subcategory], yes);
        add(m.domains[r.domain], yes);
        add(m.modes[r.mode], yes);
    }
    for (auto& [name, acc] : models) {
        ModelScores ms;
        ms.overall = acc.overall;
        for (Dimension d : all_dimensions())
            if (acc.dims.count(d)) ms.dimensions.emplace_back(d, acc.dims[d]);
        ms.subcategories.assign(acc.subcategories.begin(), acc.subcategories.end());
        ms.domains.assign(acc.domains.begin(), acc.domains.end());
        ms.modes.assign(acc.modes.begin(), acc.modes.end());
        out.models.emplace_back(name, std::move(ms));
    }
    for (Dimension d : all_dimensions()) {
        if (!pairs.count(d)) continue;
        const Pairs& p = pairs[d];
        Agreement a;
        a.pairs = p.n, a.agreed = p.agreed;
        const double N = static_cast<double>(p.n), po = static_cast<double>(p.agreed) / N;
        double pe = 0;
        for (int k = 0; k < 3; ++k) pe += (static_cast<double>(p.a[k]) / N) * (static_cast<double>(p.b[k]) / N);
        if (pe < 1 - 1e-12) a.kappa = (po - pe) / (1 - pe);
        out.agreement.emplace_back(d, a);
    }
    for (const char* mode : {"T2V", "I2V"}) {
        std::vector<std::pair<std::string, Score>> board;
        for (const auto& [name, ms] : out.models)
            for (const auto& [m, s] : ms.modes)
                if (m == mode) board.emplace_back(name, s);
        if (board.empty()) continue;
        std::stable_sort(board.begin(), board.end(),
                         [](const auto& x, const auto& y) { return x.second.hue() > y.second.hue(); });
        out.leaderboards.emplace_back(mode, std::move(board));
    }
    for (GoldAccuracy& g : gold) g.flagged = g.correct.n > 0 && g.correct.hue() < gold_threshold;
    out.gold = std::move(gold);
    return out;
}

ojson scores_json(const Scores& s) {
    auto brief = [](const Score& x) {
        const auto ci = x.ci95(), w = x.wilson95();
        return ojson{{"hue", x.hue()}, {"n", x.n}, {"ci95", {ci.first, ci.second}}, {"wilson95", {w.first, w.second}}};
    };
    ojson models = ojson::object();
    for (const auto& [name, ms] : s.models) {
        ojson m;
        m["hue"] = ms.overall.n ? ojson(ms.overall.hue()) : ojson(nullptr);  // no final label yet: no score
        m["n"] = ms.overall.n;
        m["yes"] = ms.overall.yes;
        const auto ci = ms.overall.ci95(), w = ms.overall.wilson95();
        m["ci95"] = {ci.first, ci.second};
        m["wilson95"] = {w.first, w.second};
        m["dimensions"] = ojson::object();
        for (const auto& [d, x] : ms.dimensions) m["dimensions"][dimension_name(d)] = brief(x);
        m["subcategories"] = ojson::object();
        for (const auto& [d, x] : ms.subcategories) m["subcategories"][d] = brief(x);
        m["domains"] = ojson::object();
        for (const auto& [d, x] : ms.domains) m["domains"][d] = brief(x);
        m["modes"] = ojson::object();
        for (const auto& [d, x] : ms.modes) m["modes"][d] = brief(x);
        models[name] = m;
    }
    ojson agreement = ojson::object();
    for (const auto& [d, a] : s.agreement)
        agreement[dimension_name(d)] = {
            {"percent", a.percent()}, {"kappa", a.kappa ? ojson(*a.kappa) : ojson(nullptr)}, {"pairs", a.pairs}};
    ojson boards = ojson::object();
    for (const auto& [mode, board] : s.leaderboards) {
        ojson rows = ojson::array();
        for (const auto& [name, x] : board) rows.push_back({{"model", name}, {"hue", x.hue()}, {"n", x.n}});
        boards[mode] = rows;
    }
    ojson gold = ojson::object();
    for (const GoldAccuracy& g : s.gold) {
        const auto w = g.correct.wilson95();
        gold[g.annotator] = {{"accuracy", g.correct.hue()},
                             {"correct", g.correct.yes},
                             {"n", g.correct.n},
                             {"wilson95", {w.first, w.second}},
                             {"flagged", g.flagged}};
    }
    return {{"models", models},
            {"agreement", agreement},
            {"pending", s.pending},
            {"leaderboards", boards},
            {"gold", {{"threshold", s.gold_threshold}, {"annotators", gold}}}};
}

std::string scores_table(const Scores& s) {
    std::ostringstream o;
    for (const auto& [mode, board] : s.leaderboards) {
        o << mode << " leaderboard\n";
        int rank = 0;
        for (const auto& [name, x] : board)
            o << "  " << ++rank << ". " << name << "  HUE " << fmt(x.hue()) << "  (n " << x.n << ")\n";
    }
    for (const auto& [name, ms] : s.models) {
        const auto ci = ms.overall.ci95(), w = ms.overall.wilson95();
        if (ms.overall.n == 0) {
            o << "\n" << name << ": no final labels yet\n";
            continue;
        }
        // Wilson's interval first (right near 0 and 100 and for small N); the paper's normal interval, clamped, beside
        // it.
        o << "\n"
          << name << ": HUE " << fmt(ms.overall.hue()) << "  n " << ms.overall.n << "  95% Wilson [" << fmt(w.first)
          << ", " << fmt(w.second) << "]  (paper's normal interval [" << fmt(ci.first) << ", " << fmt(ci.second)
          << "])\n";
        // Each breakdown with Wilson's interval and the paper's beside it.
        auto line = [&o](const std::string& indent, const std::string& what, const Score& x) {
            const auto xw = x.wilson95(), xc = x.ci95();
            o << indent << what << ": " << fmt(x.hue()) << " (n " << x.n << ")  [" << fmt(xw.first) << ", "
              << fmt(xw.second) << "]  paper [" << fmt(xc.first) << ", " << fmt(xc.second) << "]\n";
        };
        for (const auto& [d, x] : ms.dimensions) {
            line("  ", dimension_name(d), x);
            const std::string prefix = std::string(dimension_name(d)) + " / ";
            for (const auto& [sub, y] : ms.subcategories)
                if (sub.rfind(prefix, 0) == 0) line("    ", sub.substr(prefix.size()), y);
        }
        for (const auto& [d, x] : ms.domains) line("  ", "domain " + (d.empty() ? std::string("(none)") : d), x);
    }
    if (!s.agreement.empty()) o << "\nagreement (first two annotators)\n";
    for (const auto& [d, a] : s.agreement)
        o << "  " << dimension_name(d) << ": " << fmt(a.percent()) << " %  kappa "
          << (a.kappa ? fmt(*a.kappa, 3) : std::string("n/a")) << "  (" << a.pairs << " pairs)\n";
    o << "\npending: " << s.pending << " (disagreeing and not adjudicated, or fewer than two answers)\n";
    if (!s.gold.empty()) o << "\nannotators on gold items (flagged below " << fmt(s.gold_threshold, 0) << " % right)\n";
    for (const GoldAccuracy& g : s.gold) {
        const auto w = g.correct.wilson95();
        o << "  " << g.annotator << ": " << fmt(g.correct.hue()) << " % right (" << g.correct.yes << " of "
          << g.correct.n << ")  [" << fmt(w.first) << ", " << fmt(w.second) << "]"
          << (g.flagged ? "  FLAGGED: below the threshold" : "") << "\n";
    }
    return o.str();
}

std::string scores_csv(const Scores& s) {
    std::ostringstream o;
    // Agreement rows: yes = agreeing pairs, n = pairs, hue = percent agreement, and kappa.
    o << "scope,model,group,yes,n,hue,ci95_low,ci95_high,wilson95_low,wilson95_high,kappa,flagged\n";
    auto row = [&](const char* scope, const std::string& model, const std::string& group, const Score& x,
                   const char* flagged = "") {
        const auto ci = x.ci95(), w = x.wilson95();
        o << scope << ',' << csv_field(model) << ',' << csv_field(group) << ',' << x.yes << ',' << x.n << ','
          << fmt(x.hue(), 3) << ',' << fmt(ci.first, 3) << ',' << fmt(ci.second, 3) << ',' << fmt(w.first, 3) << ','
          << fmt(w.second, 3) << ",," << flagged << '\n';
    };
    for (const auto& [name, ms] : s.models) {
        row("model", name, "", ms.overall);
        for (const auto& [d, x] : ms.dimensions) row("dimension", name, dimension_name(d), x);
        for (const auto& [d, x] : ms.subcategories) row("subcategory", name, d, x);
        for (const auto& [d, x] : ms.domains) row("domain", name, d, x);
        for (const auto& [d, x] : ms.modes) row("mode", name, d, x);
    }
    for (const auto& [d, a] : s.agreement)
        o << "agreement,," << csv_field(dimension_name(d)) << ',' << a.agreed << ',' << a.pairs << ','
          << fmt(a.percent(), 3) << ",,,,," << (a.kappa ? fmt(*a.kappa, 4) : std::string()) << ",\n";
    for (const GoldAccuracy& g : s.gold) row("gold", "", g.annotator, g.correct, g.flagged ? "yes" : "no");
    return o.str();
}

}  // namespace ws::hue
