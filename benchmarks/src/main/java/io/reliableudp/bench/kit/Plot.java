package io.reliableudp.bench.kit;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Polygon;
import java.awt.Shape;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Writes a PNG line chart of benchmark figures (JFreeChart, headless): one or more panels stacked over a shared
 * x axis, one line per system, the same colour for a system in every panel.
 */
public final class Plot {

    private static final Color[] COLOURS = {
        new Color(0xD62728), new Color(0x1F77B4), new Color(0x2CA02C), new Color(0xFF7F0E),
        new Color(0x9467BD), new Color(0x8C564B), new Color(0x17BECF), new Color(0x7F7F7F)};

    private static final Shape[] SHAPES = {
        new Rectangle2D.Double(-4, -4, 8, 8), new Ellipse2D.Double(-4, -4, 8, 8),
        new Polygon(new int[] {0, 5, -5}, new int[] {-5, 4, 4}, 3), new Polygon(new int[] {0, 5, 0, -5}, new int[] {-5, 0, 5, 0}, 4)};

    /**
     * One panel.
     *
     * @param yLabel the y axis label
     * @param logScale a logarithmic y axis (for latencies spanning orders of magnitude); values must be > 0
     * @param series per system, its points as {x, y} pairs
     */
    public record Panel(String yLabel, boolean logScale, Map<String, List<double[]>> series) {
    }

    private Plot() {
    }

    /** Renders the panels into {@code png} ({@code width} x {@code height} pixels). */
    public static void write(Path png, String title, String xLabel, List<Panel> panels, int width, int height) throws IOException {
        System.setProperty("java.awt.headless", "true");
        CombinedDomainXYPlot combined = new CombinedDomainXYPlot(new NumberAxis(xLabel));
        combined.setGap(12);
        boolean first = true;
        for (Panel panel : panels) {
            XYSeriesCollection data = new XYSeriesCollection();
            XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
            int i = 0;
            for (Map.Entry<String, List<double[]>> e : panel.series().entrySet()) {
                XYSeries s = new XYSeries(e.getKey(), false, true);
                for (double[] point : e.getValue()) {
                    if (!Double.isNaN(point[1]) && (!panel.logScale() || point[1] > 0)) {
                        s.add(point[0], point[1]);
                    }
                }
                data.addSeries(s);
                renderer.setSeriesPaint(i, COLOURS[i % COLOURS.length]);
                renderer.setSeriesStroke(i, new BasicStroke(2f));
                renderer.setSeriesShape(i, SHAPES[i % SHAPES.length]);
                renderer.setSeriesVisibleInLegend(i, first); // one legend entry per system, not per panel
                i++;
            }
            ValueAxis y;
            if (panel.logScale()) {
                LogAxis log = new LogAxis(panel.yLabel());
                log.setSmallestValue(1e-3);
                log.setTickUnit(new NumberTickUnit(1)); // one tick per decade: 0.1, 1, 10, 100 ms
                log.setNumberFormatOverride(new DecimalFormat("0.###", DecimalFormatSymbols.getInstance(Locale.ROOT)));
                y = log;
            } else {
                y = new NumberAxis(panel.yLabel());
            }
            XYPlot plot = new XYPlot(data, null, y, renderer);
            plot.setBackgroundPaint(Color.WHITE);
            plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
            plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
            combined.add(plot, 1);
            first = false;
        }
        JFreeChart chart = new JFreeChart(title, new Font(Font.SANS_SERIF, Font.BOLD, 14), combined, true);
        chart.setBackgroundPaint(Color.WHITE);
        Files.createDirectories(png.toAbsolutePath().getParent());
        ChartUtils.saveChartAsPNG(png.toFile(), chart, width, height);
    }
}
