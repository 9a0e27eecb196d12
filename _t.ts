import { compileLinearRegExp } from "./lib/linear_regexp.ts";
for (const [p, n] of [["(?:a|a?){1000}x", 4096], ["(?:[a-z]|[a-y]|a){600}$", 4096], [".*.*.*.*a{300}b", 4096]] as const) {
    const re = compileLinearRegExp(p);
    const text = "a".repeat(n);
    const times = [];
    for (let i = 0; i < 4; i++) { const t = performance.now(); re.test(text); times.push((performance.now() - t).toFixed(0)); }
    console.log(p, n, times.join(" "), "ms");
}
