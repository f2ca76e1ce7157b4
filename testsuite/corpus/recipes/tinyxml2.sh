# recipes/tinyxml2.sh -- tinyxml2 in the corpus, sourced by run-corpus.sh
# (which describes the recipe_* functions) and used by validate-recipes.sh
# (the vrecipe_* ones).
#
# tinyxml2 (C++): its plain Makefile, which builds libtinyxml2.a and links
# xmltest with make's implicit rules, so CXX, CXXFLAGS and LDFLAGS go on
# make's command line (-fPIC is the Makefile's own CXXFLAGS).  Tests:
# `make check` runs xmltest, some 460 checks of parsing, printing, the DOM
# API and error handling, in the source tree (it reads resources/).
# Workload: `xmltest FILE` (load a document and delete it: the parser, the
# DOM's allocators, the destructors) on a generated 16 MB XML document,
# 10 times.
recipe_tinyxml2_pkg () { echo tinyxml2; }
recipe_tinyxml2_deps () { echo g++; }
recipe_tinyxml2_prepare () { unpack_deb tinyxml2 "$1"; }
recipe_tinyxml2_build () {
  make -C "$2" -j"$JOBS" xmltest CXX="$CXX_V" CXXFLAGS="-fPIC $CFLAGS_V" \
    LDFLAGS="$LDFLAGS_V" AR=gcc-ar RANLIB=gcc-ranlib
}
recipe_tinyxml2_bin () { echo "$1/xmltest"; }
recipe_tinyxml2_test () { make -C "$2" check; }
recipe_tinyxml2_summary () {
  # "Pass 463, Fail 0"
  awk '/^Pass [0-9]+, Fail [0-9]+$/ { p = $2 + 0; f = $4 + 0 }
       END { printf "%d %d\n", p, p + f }' "$1"
}
recipe_tinyxml2_normalize () {
  sed 's/^\(Parsing dream.xml ([A-Za-z]*): \)[0-9.]* milli-seconds$/\1TIME/'
}
recipe_tinyxml2_about () { echo '`xmltest FILE` (parse into a DOM, then delete it) on a generated 16 MB XML document, 10 times.'; }
# tinyxml2_data MB [LINES]: an XML document made once per work dir from MB
# megabytes of the generated text (its first LINES lines): an element per
# line with attributes, a child element per word, comments and text.
tinyxml2_data () {
  xfile=$workdir/data/xml-$1M${2:+-$2}.xml
  if ! test -s "$xfile"; then
    sed -n "1,${2:-\$}p" "$(data $1)" | awk 'BEGIN { print "<?xml version=\"1.0\"?>"; print "<doc>" }
      { n++; printf "<line n=\"%d\" len=\"%d\" odd=\"%s\">", n, length($0), (n % 2 ? "yes" : "no")
        for (i = 1; i <= NF; i++) printf "<w i=\"%d\">%s</w>", i, $i
        if (n % 7 == 0) printf "<!-- %s -->", $1
        printf "<text>%s &amp; more</text></line>\n", $0 }
      END { print "</doc>" }' > "$xfile.tmp" && mv "$xfile.tmp" "$xfile"
  fi
  echo "$xfile"
}
recipe_tinyxml2_workload () {
  xdata=$(tinyxml2_data 16) && i=0 &&
  while test $i -lt 10; do
    ./xmltest "$xdata" | grep -v ' time=' || return 1
    i=$((i + 1))
  done
}

# The recursive descent of the parser (the ParseDeep of every node
# kind, through virtual calls), attribute parsing, the allocation of nodes
# from the document's pools, and the printer's callbacks (visitors).
vrecipe_tinyxml2_funcs () {
  echo ParseDeep ParseAttributes NewElement InsertEndChild \
    OpenElement PushText DeleteNode
}
vrecipe_tinyxml2_run () { v_bin=xmltest v_args= v_stdin=/dev/null; }
