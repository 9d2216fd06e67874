// Gen writes java_double_tostring.txt: "<16 hex digits of the double bits> <Double.toString>"
// per line. Run with a JDK 19 or newer (Double.toString changed in JDK 19):
//   javac Gen.java && java -cp . Gen 3000 42 > java_double_tostring.txt
// Arguments: number of random values, random seed.
import java.util.*;
public class Gen {
  public static void main(String[] a) {
    int n = Integer.parseInt(a[0]); long seed = Long.parseLong(a[1]);
    Random r = new Random(seed);
    StringBuilder sb = new StringBuilder();
    List<Double> vals = new ArrayList<>();
    double[] special = {0.0, -0.0, 1.0, -1.0, 2.0, 10.0, 100.0, 88.2, 0.59, 1e7, 1e-4, 1e-3, 9999999.0, 1234567.0, 0.001, 9.999999999999999E-4,
      Double.MIN_VALUE, Double.MAX_VALUE, Double.MIN_NORMAL, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
      0.1+0.2, 1e-5, 1e23, 2e23, 8.41e21, 5e-324, 1e22, 1e21, 4.35, 0.3, 2.0/3, 1.0/3, 100.5, 12.5, 38.8, 50.0, 84.3, 10.2, -3.0E-5, 1.2345E10,
      9999999.999999998, 10000000.000000002, 0.0009999999999999998, 2.0E-3, 1.0E-323, 1.5E-323, 2.5E-323, 6.0E-323,
      Math.PI, Math.E, 1e16, 1e17, 9007199254740993.0, 9007199254740992.0, 4.8726570057E288, 2.82879384806159E17, 1.387364135037754E18,
      1.45800632428665E17, 1.9400994884341945E25, 5.684341886080802E-14};
    for (double d : special) vals.add(d);
    for (int i = 1; i < 200; i++) vals.add(Double.longBitsToDouble(i));          // 2^-1074 multiples
    for (int e = -1074; e <= 1023; e++) vals.add(Math.scalb(1.0, e));           // powers of two
    for (int e = -325; e <= 308; e++) { vals.add(Double.parseDouble("1e"+e)); vals.add(Double.parseDouble("5e"+e)); vals.add(Double.parseDouble("9.5e"+e)); }
    for (int e = -324; e <= -300; e++)                                          // one-digit subnormals and neighbours
      for (int dg = 1; dg <= 9; dg++) {
        long b = Double.doubleToRawLongBits(Double.parseDouble(dg + "e" + e));
        for (long k = -3; k <= 3; k++) if (b + k > 0) vals.add(Double.longBitsToDouble(b + k));
      }
    for (int i = 0; i < n; i++) {
      switch (i % 5) {
        case 0: vals.add(Double.longBitsToDouble(r.nextLong())); break;
        case 1: vals.add(Math.round(r.nextDouble()*1e6)/10.0); break;            // one decimal
        case 2: vals.add((r.nextInt(2000000)-1000000)/100.0); break;
        case 3: vals.add(r.nextDouble() * Math.pow(10, r.nextInt(30)-15)); break;
        case 4: vals.add(Double.longBitsToDouble(r.nextLong() & 0x000fffffffffffffL)); break; // subnormal
      }
    }
    for (double d : vals) {
      if (Double.isNaN(d)) continue;
      sb.append(String.format("%016x", Double.doubleToRawLongBits(d))).append(' ').append(Double.toString(d)).append('\n');
    }
    System.out.print(sb);
  }
}
