// Golden prints events of Flink's Nexmark generator (nexmark-flink at
// 6b3646c, seeded as gen.sh patches it) for the Go test golden_test.go.
// It is compiled and run by gen.sh, not by the Go build.
import com.github.nexmark.flink.NexmarkConfiguration;
import com.github.nexmark.flink.generator.GeneratorConfig;
import com.github.nexmark.flink.generator.NexmarkGenerator;
import com.github.nexmark.flink.generator.model.PriceGenerator;
import com.github.nexmark.flink.model.Auction;
import com.github.nexmark.flink.model.Bid;
import com.github.nexmark.flink.model.Event;
import com.github.nexmark.flink.model.Person;
import java.util.SplittableRandom;

public class Golden {
  public static void main(String[] args) {
    NexmarkConfiguration def = new NexmarkConfiguration();
    run("default", def, 1436918400000L, new long[][] {{0, 1000}, {1000000, 100}, {100000000000L, 50}});

    NexmarkConfiguration custom = new NexmarkConfiguration();
    custom.firstEventRate = 1000000;
    custom.nextEventRate = 1000000;
    custom.personProportion = 2;
    custom.auctionProportion = 5;
    custom.bidProportion = 13;
    custom.hotAuctionRatio = 3;
    custom.hotBiddersRatio = 5;
    custom.hotSellersRatio = 7;
    custom.avgPersonByteSize = 300;
    custom.avgAuctionByteSize = 700;
    custom.avgBidByteSize = 150;
    run("custom", custom, 1700000000123L, new long[][] {{0, 500}, {77777, 40}});

    NexmarkConfiguration slow = new NexmarkConfiguration();
    slow.firstEventRate = 7;
    slow.nextEventRate = 7;
    slow.avgBidByteSize = 20; // smaller than a bid: no extra
    run("slow", slow, 0L, new long[][] {{0, 200}});

    // PriceGenerator.nextPrice over many draws: a hash of the prices (the
    // Go test computes the same). Math.pow itself is not bit-exact across
    // implementations (HotSpot's intrinsic and StrictMath.pow differ in
    // about 10% of results, Go's math.Pow in more); the prices, rounded
    // to cents, are what must agree.
    SplittableRandom r = new SplittableRandom(7);
    long h = 0;
    int n = 4000000;
    for (int i = 0; i < n; i++) {
      h = h * 31 + PriceGenerator.nextPrice(r);
    }
    System.out.println("pricehash\t" + n + "\t" + h);
  }

  static void run(String name, NexmarkConfiguration conf, long baseTime, long[][] ranges) {
    GeneratorConfig config = new GeneratorConfig(conf, baseTime, 1, 0, -1, 1);
    System.out.println("config\t" + name + "\t" + baseTime + "\t" + conf.firstEventRate + "\t"
        + conf.personProportion + "\t" + conf.auctionProportion + "\t" + conf.bidProportion + "\t"
        + conf.hotAuctionRatio + "\t" + conf.hotBiddersRatio + "\t" + conf.hotSellersRatio + "\t"
        + conf.avgPersonByteSize + "\t" + conf.avgAuctionByteSize + "\t" + conf.avgBidByteSize);
    for (long[] range : ranges) {
      // A generator that has emitted range[0] events: how Flink resumes a
      // split from a checkpoint.
      NexmarkGenerator gen = new NexmarkGenerator(config, range[0], 0);
      for (long i = range[0]; i < range[0] + range[1]; i++) {
        NexmarkGenerator.NextEvent next = gen.nextEvent();
        System.out.println(format(i, next.eventTimestamp, next.event));
      }
    }
  }

  static String format(long i, long ts, Event e) {
    StringBuilder sb = new StringBuilder();
    sb.append(i).append('\t').append(ts).append('\t');
    if (e.type == Event.Type.PERSON) {
      Person p = e.newPerson;
      sb.append("P\t").append(p.id).append('\t').append(p.name).append('\t').append(p.emailAddress)
          .append('\t').append(p.creditCard).append('\t').append(p.city).append('\t').append(p.state)
          .append('\t').append(p.dateTime.toEpochMilli());
      extra(sb, p.extra);
    } else if (e.type == Event.Type.AUCTION) {
      Auction a = e.newAuction;
      sb.append("A\t").append(a.id).append('\t').append(a.itemName).append('\t').append(a.description)
          .append('\t').append(a.initialBid).append('\t').append(a.reserve).append('\t')
          .append(a.dateTime.toEpochMilli()).append('\t').append(a.expires.toEpochMilli()).append('\t')
          .append(a.seller).append('\t').append(a.category);
      extra(sb, a.extra);
    } else {
      Bid b = e.bid;
      sb.append("B\t").append(b.auction).append('\t').append(b.bidder).append('\t').append(b.price)
          .append('\t').append(b.channel).append('\t').append(b.url).append('\t')
          .append(b.dateTime.toEpochMilli());
      extra(sb, b.extra);
    }
    return sb.toString();
  }

  // extra: its length, String.hashCode and first 16 characters (the
  // padding is long; these pin it without bloating the file).
  static void extra(StringBuilder sb, String s) {
    sb.append('\t').append(s.length()).append('\t').append(s.hashCode()).append('\t')
        .append(s.substring(0, Math.min(16, s.length())));
  }
}
