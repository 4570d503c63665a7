package io.reliableudp.bench.kit;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A readable text table: columns sized to their widest cell, text left-aligned, numbers right-aligned.
 */
public final class Table {

    private final List<String> headers;
    private final List<List<String>> rows = new ArrayList<>();

    /** A table with these column headers. */
    public Table(String... headers) {
        this.headers = List.of(headers);
    }

    /** Adds a row; numbers are formatted with {@link #number(double)}. */
    public Table row(Object... cells) {
        List<String> row = new ArrayList<>(cells.length);
        for (Object c : cells) {
            row.add(c instanceof Double d ? number(d) : c instanceof Float f ? number(f) : String.valueOf(c));
        }
        rows.add(row);
        return this;
    }

    /** A figure with a sensible number of digits: 0.123, 12.3, 1,234. */
    public static String number(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        double a = Math.abs(v);
        if (a >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (a >= 100) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        if (a >= 1 || a == 0) {
            return String.format(Locale.ROOT, "%.2f", v);
        }
        return String.format(Locale.ROOT, "%.3f", v);
    }

    /** Prints the table, a title line first. */
    public void print(PrintStream out, String title) {
        int[] width = new int[headers.size()];
        for (int i = 0; i < width.length; i++) {
            width[i] = headers.get(i).length();
            for (List<String> r : rows) {
                width[i] = Math.max(width[i], i < r.size() ? r.get(i).length() : 0);
            }
        }
        out.println();
        out.println(title);
        out.println(line(headers, width, true));
        StringBuilder rule = new StringBuilder();
        for (int w : width) {
            rule.append(rule.isEmpty() ? "" : "  ").append("-".repeat(w));
        }
        out.println(rule);
        for (List<String> r : rows) {
            out.println(line(r, width, false));
        }
    }

    private static String line(List<String> cells, int[] width, boolean header) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < width.length; i++) {
            String c = i < cells.size() ? cells.get(i) : "";
            boolean right = !header && i > 0 && !c.isEmpty() && (Character.isDigit(c.charAt(0)) || c.charAt(0) == '-');
            if (i > 0) {
                b.append("  ");
            }
            b.append(right ? " ".repeat(width[i] - c.length()) + c : c + " ".repeat(width[i] - c.length()));
        }
        return b.toString().stripTrailing();
    }
}
