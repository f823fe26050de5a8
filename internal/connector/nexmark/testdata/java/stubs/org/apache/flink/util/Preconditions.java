// Stub of the one Flink method the Nexmark generator uses.
package org.apache.flink.util;

public final class Preconditions {
  public static <T> T checkNotNull(T ref) {
    if (ref == null) {
      throw new NullPointerException();
    }
    return ref;
  }
}
