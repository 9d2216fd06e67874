package com.github.nexmark.flink.udf;

import org.apache.flink.table.functions.ScalarFunction;

/**
 * Nexmark q14's user-defined function, under the class name the reference
 * query names: how many times the first character of {@code c} occurs in
 * {@code s} (0 for a NULL s). streamql runs the same function as a
 * WebAssembly module (queries/udf/count_char).
 */
public class CountChar extends ScalarFunction {
    public long eval(String s, String c) {
        if (s == null || c == null || c.isEmpty()) {
            return 0;
        }
        char want = c.charAt(0);
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == want) {
                n++;
            }
        }
        return n;
    }
}
