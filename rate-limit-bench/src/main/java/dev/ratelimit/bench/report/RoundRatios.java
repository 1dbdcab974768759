package dev.ratelimit.bench.report;

import java.util.ArrayList;
import java.util.DoubleSummaryStatistics;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.DoubleFunction;
import java.util.function.Predicate;

/**
 * Ours over a peer in every paired round that measured both: the rounds run the two in consecutive
 * forks, so a slow spell of the shared machine falls on both, and the median of the rounds' ratios
 * is what a target is judged on.
 *
 * @param perRound one ratio per round, in round order
 */
record RoundRatios(List<Double> perRound) {

    /**
     * The ratios of {@code ours} over {@code peer} in each round holding one result of each with a score (a
     * result without a number measured nothing: counted, its NaN would sort above every ratio and move the
     * median); empty if none does.
     */
    static Optional<RoundRatios> of(Map<Integer, List<JmhResult>> rounds, Predicate<JmhResult> ours, Predicate<JmhResult> peer) {
        List<Double> ratios = new ArrayList<>();
        for (List<JmhResult> round : rounds.values()) {
            Optional<JmhResult> a = round.stream().filter(ours).findFirst();
            Optional<JmhResult> b = round.stream().filter(peer).findFirst();
            double ratio = a.isPresent() && b.isPresent() ? a.get().score() / b.get().score() : Double.NaN;
            if (Double.isFinite(ratio)) {
                ratios.add(ratio);
            }
        }
        return ratios.isEmpty() ? Optional.empty() : Optional.of(new RoundRatios(List.copyOf(ratios)));
    }

    double median() {
        return median(false);
    }

    /** The median of the rounds' ratios, each inverted first if {@code inverse}. */
    double median(boolean inverse) {
        List<Double> sorted = perRound.stream().map(r -> inverse ? 1 / r : r).sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** "3 rounds: 4.10x-5.20x" (each shown by {@code format}, inverted first if {@code inverse}), or "1 round". */
    String range(boolean inverse, DoubleFunction<String> format) {
        if (perRound.size() == 1) {
            return "1 round";
        }
        DoubleSummaryStatistics shown = perRound.stream().mapToDouble(r -> inverse ? 1 / r : r).summaryStatistics();
        return String.format(Locale.ROOT, "%d rounds: %s-%s", perRound.size(), format.apply(shown.getMin()),
                format.apply(shown.getMax()));
    }
}
