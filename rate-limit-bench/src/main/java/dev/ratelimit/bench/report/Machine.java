package dev.ratelimit.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The machine the report was made on, read from {@code /proc} and {@code /etc/os-release} (Linux);
 * anything unreadable shows as "unknown". The JDK is the one running the report, which the script
 * also uses for every benchmark.
 *
 * @param cpu    the CPU model name
 * @param cores  logical CPUs the JVM sees
 * @param ramGiB total memory
 * @param os     distribution and kernel
 * @param jdk    vendor, VM and version
 */
record Machine(String cpu, int cores, String ramGiB, String os, String jdk) {

    static Machine current() {
        String cpu = firstValue(Path.of("/proc/cpuinfo"), "model name");
        String mem = firstValue(Path.of("/proc/meminfo"), "MemTotal");
        String ram = "unknown";
        if (!mem.equals("unknown")) {
            long kb = Long.parseLong(mem.replaceAll("[^0-9]", ""));
            ram = String.format(Locale.ROOT, "%.1f GiB", kb / 1024.0 / 1024.0);
        }
        String os = firstValue(Path.of("/etc/os-release"), "PRETTY_NAME").replace("\"", "");
        String kernel = read(Path.of("/proc/sys/kernel/osrelease")).trim();
        String jdk = System.getProperty("java.vm.vendor") + " " + System.getProperty("java.vm.name") + " "
                + System.getProperty("java.runtime.version");
        return new Machine(cpu, Runtime.getRuntime().availableProcessors(), ram,
                os + (kernel.isEmpty() ? "" : ", Linux " + kernel), jdk);
    }

    /** The value of the first {@code key: value} or {@code key=value} line. */
    private static String firstValue(Path file, String key) {
        for (String line : read(file).split("\n")) {
            if (line.startsWith(key)) {
                int sep = line.indexOf(':');
                if (sep < 0) {
                    sep = line.indexOf('=');
                }
                if (sep > 0) {
                    return line.substring(sep + 1).trim();
                }
            }
        }
        return "unknown";
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    List<List<String>> rows() {
        return List.of(List.of("CPU", cpu), List.of("Logical CPUs", Integer.toString(cores)), List.of("Memory", ramGiB),
                List.of("OS", os), List.of("JDK", jdk));
    }
}
