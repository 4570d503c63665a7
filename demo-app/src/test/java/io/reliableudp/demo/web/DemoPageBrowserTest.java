package io.reliableudp.demo.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.JsonNode;

/**
 * The demo's page in a real browser (Debian's chromium through chromium-driver, Selenium 4): starts the
 * demo on random ports, opens {@code /}, waits for live data, raises rover-1's loss to 30 % through the
 * page's controls and sees the measured loss and the resends rise while rover-1's positions keep
 * arriving in order, kills and restarts rover-3 from the page, and saves a screenshot
 * ({@code target/demo.png}; {@code -Ddemo.screenshot=docs/images/demo.png} refreshes the docs' copy).
 * Skipped, saying why, when chromium or its driver is not installed.
 */
@Timeout(150)
class DemoPageBrowserTest {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    @Test
    void lossRaisedFromThePageIsRecoveredInOrder() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "SKIPPED: the browser test needs Debian's chromium and chromium-driver (/usr/bin/chromium, /usr/bin/chromedriver):"
                        + " apt-get install chromium chromium-driver (.ci/run installs them when it runs as root)");
        Path profile = Files.createTempDirectory("demo-chromium-");
        WebDriver browser = null;
        try (RunningDemo demo = new RunningDemo("--demo.status-interval=10s")) {
            browser = chromium(profile);
            WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(45), Duration.ofMillis(250));
            browser.get(demo.url);

            // live data: several updates, positions delivered
            WebDriver b = browser;
            wait.until(d -> number(b, "live", "data-updates") >= 3 && number(b, "delivered-rover-1") > 20);
            long resentBefore = number(browser, "resent-rover-1");

            // raise rover-1's loss through the page's controls (the actuator's write operation)
            WebElement loss = browser.findElement(By.id("set-rover-1-loss"));
            loss.clear();
            loss.sendKeys("30");
            browser.findElement(By.id("apply-rover-1")).click();
            wait.until(d -> demoLoss(demo) > 0.29);

            // the measured loss and the resends rise; positions keep arriving, in order
            long deliveredAtRaise = number(browser, "delivered-rover-1");
            wait.until(d -> cellNumber(b, "lossm-rover-1-station") > 10 && number(b, "resent-rover-1") > resentBefore + 20
                    && number(b, "delivered-rover-1") > deliveredAtRaise + 60);
            assertThat(browser.findElement(By.id("intact-rover-1")).getText()).isEqualTo("in order, none missing");
            JsonNode rover1 = demo.json("demo/state").get("rovers").get("rover-1");
            assertThat(rover1.get("outOfOrder").asLong()).isZero();
            assertThat(rover1.get("positionsFailed").asLong()).isZero();
            assertThat(rover1.get("positionsPending").asLong()).as("positions waiting for an ack").isLessThan(60);

            Files.createDirectories(Path.of("target"));
            Path shot = Path.of("target", "demo.png");
            Files.write(shot, ((ChromeDriver) browser).getScreenshotAs(OutputType.BYTES));
            String docsCopy = System.getProperty("demo.screenshot");
            if (docsCopy != null && !docsCopy.isBlank()) {
                Files.copy(shot, Path.of(docsCopy), StandardCopyOption.REPLACE_EXISTING);
            }

            // kill rover-3 from the page, then restart it: a new epoch whose positions arrive
            browser.findElement(By.id("kill-rover-3")).click();
            wait.until(d -> text(b, "kill-rover-3").startsWith("killed"));
            assertThat(demo.json("demo/state").get("rovers").get("rover-3").get("alive").asBoolean()).isFalse();
            browser.findElement(By.id("restart-rover-3")).click();
            wait.until(d -> text(b, "kill-rover-3").equals("kill"));
            long afterRestart = number(browser, "delivered-rover-3");
            wait.until(d -> number(b, "delivered-rover-3") > afterRestart + 20);
            assertThat(demo.json("demo/state").get("rovers").get("rover-3").get("epoch").asInt()).isEqualTo(2);
            assertThat(browser.findElement(By.id("intact-rover-3")).getText()).isEqualTo("in order, none missing");

            browser.quit();
            browser = null;
            demo.stop();
            assertThat(demo.verdict()).as("every reliable message delivered in order or failed with a reason").isTrue();
        } finally {
            if (browser != null) {
                browser.quit();
            }
        }
    }

    /** Chromium headless, fresh profile, Debian's driver; Selenium Manager is never asked (both paths are given). */
    static WebDriver chromium(Path profile) {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--user-data-dir=" + profile, "--window-size=1500,1250",
                "--hide-scrollbars");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER.toString()))
                .usingAnyFreePort().build();
        return new ChromeDriver(service, options);
    }

    private static double demoLoss(RunningDemo demo) {
        return unchecked(() -> demo.json("actuator/reliableudp").get("nodes").get("rover-1").get("linkConditioner")
                .get("lossProbability").asDouble());
    }

    private static String text(WebDriver b, String id) {
        return b.findElement(By.id(id)).getText();
    }

    private static long number(WebDriver b, String id) {
        String t = text(b, id).trim();
        return t.matches("\\d+") ? Long.parseLong(t) : -1;
    }

    private static long number(WebDriver b, String id, String attribute) {
        String t = b.findElement(By.id(id)).getDomAttribute(attribute);
        return t == null ? -1 : Long.parseLong(t);
    }

    private static double cellNumber(WebDriver b, String id) {
        try {
            return Double.parseDouble(text(b, id).trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static <T> T unchecked(Callable<T> call) {
        try {
            return call.call();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
