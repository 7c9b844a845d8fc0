// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.EngineMode;
import dev.memplan.MemPlan;
import java.util.Locale;
import java.util.Set;

/**
 * Loads the native engine on a thread of its own while picocli builds and parses the command line:
 * both are fixed costs of a short run (JavaCPP's load about 0.08 s, picocli more), and on two cores
 * they overlap. Only for the subcommands that plan, and not when the Java engine is asked for. The
 * load is the engine's own, once per class loader: a plan that comes first waits for it, and a
 * failure is reported by the plan that needs the engine, as without the preload.
 */
final class NativePreload {
    private static final Set<String> PLANNING = Set.of("plan", "pack", "draw", "demo");

    private NativePreload() {
    }

    /** Starts the load when {@code args} run a planning subcommand on an engine that may be native. */
    static void startFor(String[] args) {
        if (wanted(args)) {
            Thread load = new Thread(() -> MemPlan.engineName(EngineMode.AUTO), "memplan-native-preload");
            load.setDaemon(true);
            load.start();
        }
    }

    static boolean wanted(String[] args) {
        if (args.length == 0 || !PLANNING.contains(args[0]) || isJava(System.getProperty("memplan.engine"))) {
            return false;
        }
        for (int i = 1; i < args.length; i++) {
            if ((args[i].equals("--engine") && i + 1 < args.length && isJava(args[i + 1]))
                    || (args[i].startsWith("--engine=") && isJava(args[i].substring("--engine=".length())))) {
                return false;
            }
        }
        return true;
    }

    private static boolean isJava(String engine) {
        return engine != null && engine.toLowerCase(Locale.ROOT).equals("java");
    }
}
