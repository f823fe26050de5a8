#!/bin/sh
# Regenerates ../golden.tsv from Flink's Nexmark generator (Java), so that
# golden_test.go pins Eddy's generator to it value for value.
#
#   gen.sh NEXMARK_GIT_DIR    (a clone of github.com/nexmark/nexmark)
#
# It takes the generator's classes from commit 6b3646c, makes the one
# change that makes them deterministic (Flink draws from unseeded
# SplittableRandoms; Eddy seeds one per event with the event id, and the
# static tables with fixed seeds: decision 0019), compiles them with the
# stubs of the few Flink/Jackson/SLF4J classes they import, and runs
# Golden. Needs a JDK (javac, java) 17.
set -eu
repo=${1:?usage: gen.sh NEXMARK_GIT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
commit=6b3646c3baec
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=nexmark-flink/src/main/java/com/github/nexmark/flink
for f in NexmarkConfiguration utils/NexmarkUtils model/Person model/Auction model/Bid model/Event \
	generator/GeneratorConfig generator/NexmarkGenerator \
	generator/model/AuctionGenerator generator/model/BidGenerator generator/model/LongGenerator \
	generator/model/PersonGenerator generator/model/PriceGenerator generator/model/StringsGenerator; do
	mkdir -p "$work/src/$(dirname "$f")"
	git -C "$repo" show "$commit:$src/$f.java" >"$work/src/$f.java"
done
# The seeding (the only change to Flink's code).
sed -i 's/private final SplittableRandom random = new SplittableRandom();//' "$work/src/generator/NexmarkGenerator.java"
sed -i 's/long newEventId = getNextEventId();/long newEventId = getNextEventId(); SplittableRandom random = new SplittableRandom(newEventId);/' "$work/src/generator/NexmarkGenerator.java"
sed -i 's/nextExactString(new SplittableRandom(), 1024 \* 1024)/nextExactString(new SplittableRandom(0x6e65786d61726b01L), 1024 * 1024)/' "$work/src/generator/model/StringsGenerator.java"
sed -i 's/SplittableRandom random = new SplittableRandom();/SplittableRandom random = new SplittableRandom(0x6e65786d61726b02L);/' "$work/src/generator/model/BidGenerator.java"
for pat in 'new SplittableRandom(newEventId)' '0x6e65786d61726b01L' '0x6e65786d61726b02L'; do
	grep -rqF "$pat" "$work/src" || { echo "gen.sh: patching failed ($pat)" >&2; exit 1; }
done
if grep -rn 'new SplittableRandom()' "$work/src"; then
	echo "gen.sh: an unseeded generator is left" >&2
	exit 1
fi
mkdir -p "$work/classes"
javac -nowarn -d "$work/classes" $(find "$here/stubs" "$work/src" -name '*.java') "$here/Golden.java"
java -cp "$work/classes" Golden >"$here/../golden.tsv"
echo "wrote $(wc -l <"$here/../golden.tsv") lines to $here/../golden.tsv"
