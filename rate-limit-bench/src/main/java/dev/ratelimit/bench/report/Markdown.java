package dev.ratelimit.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** A Markdown document under construction, with tables and number formats used by the report. */
final class Markdown {
    private final StringBuilder text = new StringBuilder();

    Markdown heading(int level, String title) {
        text.append("\n").append("#".repeat(level)).append(' ').append(title).append("\n\n");
        return this;
    }

    Markdown paragraph(String s) {
        text.append(s).append("\n\n");
        return this;
    }

    Markdown line(String s) {
        text.append(s).append('\n');
        return this;
    }

    Markdown code(String s) {
        text.append("```\n").append(s).append("\n```\n\n");
        return this;
    }

    Markdown table(Table table) {
        text.append(table.render()).append('\n');
        return this;
    }

    @Override
    public String toString() {
        return text.toString();
    }

    /** A table with a header row; cells are rendered as given (pipes escaped). */
    static final class Table {
        private final List<String> header;
        private final boolean text;
        private final List<List<String>> rows = new ArrayList<>();

        /** A table whose columns after the first hold numbers (right-aligned). */
        Table(List<String> header) {
            this(header, false);
        }

        /** A table of text, every column left-aligned when {@code text}. */
        Table(List<String> header, boolean text) {
            this.header = header;
            this.text = text;
        }

        Table row(List<String> cells) {
            rows.add(cells);
            return this;
        }

        boolean isEmpty() {
            return rows.isEmpty();
        }

        String render() {
            StringBuilder out = new StringBuilder();
            out.append(line(header));
            out.append('|');
            for (int i = 0; i < header.size(); i++) {
                out.append(i == 0 || text ? "---|" : "---:|");
            }
            out.append('\n');
            for (List<String> row : rows) {
                out.append(line(row));
            }
            return out.toString();
        }

        private static String line(List<String> cells) {
            StringBuilder out = new StringBuilder("|");
            for (String cell : cells) {
                out.append(' ').append(cell == null ? "" : cell.replace("|", "\\|")).append(" |");
            }
            return out.append('\n').toString();
        }
    }

    /** Decisions per second as millions or thousands with three significant digits: {@code 12.3 M}, {@code 45.6 k}. */
    static String rate(double perSecond) {
        if (Double.isNaN(perSecond)) {
            return "n/a";
        }
        if (perSecond >= 1e6) {
            return sig(perSecond / 1e6) + " M";
        }
        if (perSecond >= 1e3) {
            return sig(perSecond / 1e3) + " k";
        }
        return sig(perSecond);
    }

    /** A ratio such as {@code 5.21x}. */
    static String ratio(double r) {
        return Double.isNaN(r) || Double.isInfinite(r) ? "n/a" : String.format(Locale.ROOT, "%.2fx", r);
    }

    /** A share as a percentage, e.g. {@code 93%}. */
    static String percent(double share) {
        return Double.isNaN(share) ? "n/a" : String.format(Locale.ROOT, "%.0f%%", share * 100);
    }

    /** A plain number with up to one decimal. */
    static String number(double x) {
        if (Double.isNaN(x)) {
            return "n/a";
        }
        return Math.abs(x - Math.rint(x)) < 0.05 ? String.format(Locale.ROOT, "%.0f", x) : String.format(Locale.ROOT, "%.1f", x);
    }

    /** Three significant digits. */
    static String sig(double x) {
        if (x >= 100) {
            return String.format(Locale.ROOT, "%.0f", x);
        }
        if (x >= 10) {
            return String.format(Locale.ROOT, "%.1f", x);
        }
        return String.format(Locale.ROOT, "%.2f", x);
    }
}
