package io.reliableudp.demo.web;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.SimpleDateFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TimeZone;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.DateAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.data.time.FixedMillisecond;
import org.jfree.data.time.TimeSeries;
import org.jfree.data.time.TimeSeriesCollection;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Draws the Grafana dashboard's panels from Prometheus's answers ({@code target/prometheus-answers.json},
 * written by {@link DashboardPrometheusTest}): each panel at its {@code gridPos} (24 columns), stat
 * panels as the last value of each series, time series as JFreeChart line charts with the legend from
 * the panel's {@code legendFormat}, the scenario's phases shaded. It evaluates no PromQL: every number
 * in the picture is one Prometheus returned. Styling imitates Grafana's dark theme loosely.
 *
 * <p>Run alone: {@code DashboardRenderer answers.json out.png}.
 */
final class DashboardRenderer {

    private static final int WIDTH = 1600;
    private static final int ROW = 34;
    private static final Color BACKGROUND = new Color(0x111217);
    private static final Color PANEL = new Color(0x181b1f);
    private static final Color TEXT = new Color(0xd8d9da);
    private static final Color MUTED = new Color(0x8e8e8e);
    private static final Color[] PALETTE = { new Color(0x73bf69), new Color(0xf2cc0c), new Color(0x5794f2), new Color(0xff9830),
        new Color(0xf2495c), new Color(0xb877d9), new Color(0x8ab8ff), new Color(0x96d98d), new Color(0xffb357),
        new Color(0xca95e5), new Color(0xff7383), new Color(0x37872d) };
    private static final Pattern LEGEND = Pattern.compile("\\{\\{\\s*(\\w+)\\s*}}");

    private DashboardRenderer() {
    }

    /** Renders {@code answers} into {@code png}. */
    static void render(Path answers, Path png) throws Exception {
        JsonNode a = JsonMapper.builder().build().readTree(Files.readString(answers));
        int rows = 0;
        for (JsonNode p : a.get("panels")) {
            rows = Math.max(rows, p.get("gridPos").get("y").asInt() + p.get("gridPos").get("h").asInt());
        }
        int height = 60 + rows * ROW + 10;
        BufferedImage image = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(BACKGROUND);
        g.fillRect(0, 0, WIDTH, height);
        g.setColor(TEXT);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 18));
        g.drawString("reliable-udp (docs/grafana/reliable-udp.json): every panel's query answered by Prometheus 2.42, node = All, peer = All", 12, 26);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        g.setColor(MUTED);
        SimpleDateFormat hms = new SimpleDateFormat("HH:mm:ss", Locale.ROOT);
        hms.setTimeZone(TimeZone.getTimeZone("UTC"));
        StringBuilder sub = new StringBuilder("the demo (station, rover-1..3) scraped every 1 s; $__rate_interval = " + a.get("rateInterval").asString()
                + "; shaded: ");
        for (JsonNode ph : a.get("phases")) {
            sub.append(ph.get("label").asString()).append(" (").append(hms.format((long) (ph.get("from").asDouble() * 1000)))
                    .append("-").append(hms.format((long) (ph.get("to").asDouble() * 1000))).append(" UTC)  ");
        }
        g.drawString(sub.toString(), 12, 46);
        double unitWidth = (WIDTH - 12) / 24.0;
        for (JsonNode p : a.get("panels")) {
            JsonNode pos = p.get("gridPos");
            int x = 6 + (int) (pos.get("x").asInt() * unitWidth);
            int y = 56 + pos.get("y").asInt() * ROW;
            int w = (int) (pos.get("w").asInt() * unitWidth) - 6;
            int h = pos.get("h").asInt() * ROW - 6;
            if ("stat".equals(p.get("type").asString())) {
                stat(g, p, x, y, w, h);
            } else {
                JFreeChart chart = timeseries(p, a.get("phases"));
                chart.draw(g, new Rectangle2D.Double(x, y, w, h));
            }
        }
        g.dispose();
        ImageIO.write(image, "png", png.toFile());
    }

    private static void stat(Graphics2D g, JsonNode p, int x, int y, int w, int h) {
        g.setColor(PANEL);
        g.fillRect(x, y, w, h);
        g.setColor(TEXT);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
        g.drawString(p.get("title").asString(), x + 8, y + 18);
        List<String[]> values = new ArrayList<>();
        for (JsonNode t : p.get("targets")) {
            for (JsonNode s : t.get("result")) {
                JsonNode v = s.get("values");
                String last = v.isEmpty() ? "–" : v.get(v.size() - 1).get(1).asString();
                values.add(new String[] { legend(t.get("legendFormat").asString(), s.get("metric")), format(last, p.get("unit").asString()) });
            }
        }
        int lineHeight = Math.max(14, Math.min(40, (h - 28) / Math.max(1, values.size())));
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, Math.min(30, lineHeight - 2)));
        int row = y + 28 + lineHeight - 4;
        for (String[] v : values) {
            g.setColor(PALETTE[0]);
            String text = values.size() == 1 ? v[1] : v[0] + ": " + v[1];
            g.drawString(text, x + 10, row);
            row += lineHeight;
        }
    }

    private static JFreeChart timeseries(JsonNode p, JsonNode phases) {
        String unit = p.get("unit").asString();
        double scale = switch (unit) {
            case "s" -> 1000;              // drawn in ms
            case "percentunit" -> 100;     // drawn in %
            default -> 1;
        };
        String axis = switch (unit) {
            case "s" -> "ms";
            case "percentunit" -> "%";
            case "Bps" -> "bytes/s";
            case "pps" -> "packets/s";
            default -> "";
        };
        TimeSeriesCollection data = new TimeSeriesCollection();
        for (JsonNode t : p.get("targets")) {
            for (JsonNode s : t.get("result")) {
                TimeSeries series = new TimeSeries(legend(t.get("legendFormat").asString(), s.get("metric")));
                for (JsonNode v : s.get("values")) {
                    double value = Double.parseDouble(v.get(1).asString());
                    if (Double.isFinite(value)) {
                        series.addOrUpdate(new FixedMillisecond((long) (v.get(0).asDouble() * 1000)), value * scale);
                    }
                }
                data.addSeries(series);
            }
        }
        JFreeChart chart = ChartFactory.createTimeSeriesChart(p.get("title").asString(), null, axis, data, true, false, false);
        chart.setBackgroundPaint(PANEL);
        chart.getTitle().setPaint(TEXT);
        chart.getTitle().setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
        chart.getTitle().setPosition(RectangleEdge.TOP);
        XYPlot plot = chart.getXYPlot();
        plot.setBackgroundPaint(PANEL);
        plot.setDomainGridlinePaint(new Color(0x2c2d33));
        plot.setRangeGridlinePaint(new Color(0x2c2d33));
        plot.setOutlineVisible(false);
        for (JsonNode ph : phases) {
            IntervalMarker m = new IntervalMarker(ph.get("from").asDouble() * 1000, ph.get("to").asDouble() * 1000,
                    new Color(255, 255, 255, 22));
            plot.addDomainMarker(m);
        }
        DateAxis x = (DateAxis) plot.getDomainAxis();
        SimpleDateFormat hms = new SimpleDateFormat("HH:mm:ss", Locale.ROOT);
        hms.setTimeZone(TimeZone.getTimeZone("UTC"));
        x.setDateFormatOverride(hms);
        NumberAxis y = (NumberAxis) plot.getRangeAxis();
        for (var ax : List.of(x, y)) {
            ax.setTickLabelPaint(MUTED);
            ax.setLabelPaint(MUTED);
            ax.setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
            ax.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        }
        y.setAutoRangeIncludesZero(true);
        y.setAutoRangeMinimumSize(1.0);   // an all-zero panel reads 0..1, not +-5E-9
        XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, false);
        for (int i = 0; i < data.getSeriesCount(); i++) {
            r.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
            r.setSeriesStroke(i, new BasicStroke(1.5f));
        }
        plot.setRenderer(r);
        LegendTitle legend = chart.getLegend();
        legend.setBackgroundPaint(PANEL);
        legend.setItemPaint(TEXT);
        legend.setItemFont(new Font(Font.SANS_SERIF, Font.PLAIN, data.getSeriesCount() > 12 ? 8 : 10));
        legend.setFrame(org.jfree.chart.block.BlockBorder.NONE);
        return chart;
    }

    /** Grafana's legendFormat: {{label}} replaced by the series' label value. */
    static String legend(String format, JsonNode metric) {
        if (format.isEmpty()) {
            return metric.toString();
        }
        Matcher m = LEGEND.matcher(format);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            JsonNode v = metric.get(m.group(1));
            m.appendReplacement(b, Matcher.quoteReplacement(v == null ? "" : v.asString()));
        }
        m.appendTail(b);
        return b.toString();
    }

    private static String format(String value, String unit) {
        double v = Double.parseDouble(value);
        return switch (unit) {
            case "s" -> String.format(Locale.ROOT, "%.1f ms", v * 1000);
            case "percentunit" -> String.format(Locale.ROOT, "%.1f %%", v * 100);
            default -> v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.2f", v);
        };
    }

    /**
     * Renders a saved answers file.
     *
     * @param args answers.json out.png
     */
    public static void main(String[] args) throws Exception {
        render(Path.of(args[0]), Path.of(args[1]));
    }
}
