#!/bin/sh
# Series end to end: `tagbot run` on bot@'s INBOX over IMAP (IDLE,
# STARTTLS), replies through Postfix into author@'s INBOX.
# Series are built by tests/integration/e2e-mail.py: a cover letter
# PREFIX-0 and patches PREFIX-1..n threaded under it as git send-email
# does, each patch of a kind whose findings tagbot-rules(7) fixes; what is
# asserted is what reaches author@:
#   a) reply_mode = per-patch: one reply per patch with findings, threaded
#      to it (References: cover, patch); none to the cover or a clean patch;
#      a list whose [list ID] section says per-series: one series reply;
#      a v2 whose Link: names v1 (seen by the bot: the same subject, a
#      lower version): LINK_TO_PREVIOUS_VERSION
#   b) reply_mode = per-series: one reply, to the cover letter, naming each
#      patch with its findings, before series_wait has passed
#   c) out of order (patch 2, cover, patch 3, patch 1), a late cover (after
#      all the patches), the subject forms [PATCHv4 1/2] and [PATCH1/2]: the
#      same
#   d) a missing patch: nothing before series_wait, then one reply
#   e) no cover letter: one reply, to patch 1 (threaded under patch 1; and
#      unthreaded, grouped by sender, version and total)
#   f) a v2 sent in reply to v1's cover: a series of its own, one reply
#      with v2's findings only (so for another series sent in reply to a
#      series' cover); none when a maintainer said "tagbot: quiet"
#      under v1's cover (signed for example.org and verified by OpenDKIM
#      in Postfix, as commands must be: see daemon-cc.sh)
#   g) a clean series: no reply
#   h) the bot stopped (SIGTERM, then SIGKILL) during a series wait, or
#      while patches arrive: exactly one series reply
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/servers.sh"
srv_need dovecot postfix opendkim
srv_init
srv_start_dovecot || exit 99
srv_start_opendkim || exit 99
srv_start_postfix || exit 99
. "$top_srcdir/tests/integration/daemon-lib.sh"
WAIT=15		# series_wait
series() { $MAIL series "$W" "$@"; }
now() { date +%s; }

# --- a) per-patch --------------------------------------------------------
INI=$W/per-patch.ini STATE=$W/per-patch.db
bot_ini "$INI" "$STATE" "reply_mode = per-patch
series_wait = $WAIT" "[list series.example.org]
reply_mode = per-series"
bot_start
check "the bot starts and takes its checkpoint" wait_ready 20
series pp case,changeid,clean
$MAIL append $BOT $(p pp-0 pp-1 pp-2 pp-3)
check "a) per-patch: the patches with findings are answered" \
	$MAIL wait-replies $AUTHOR 20 $(mid pp-1 pp-2)
check "a) per-patch: one reply each, threaded to the patch; none to the cover or the clean patch" \
	$MAIL wait-verify $AUTHOR 3 $(p pp-0 pp-1 pp-2 pp-3)
series ls twice,clean,changeid
listed series.example.org ls-0 ls-1 ls-2 ls-3
check "a) [list ID] reply_mode = per-series: that list's series is answered" \
	$MAIL wait-replies $AUTHOR $((WAIT - 4)) $(mid ls-0)
check "a) ... once, to the cover, findings per patch" \
	$MAIL verify-series $AUTHOR $(p ls-0 ls-1 ls-2 ls-3)
$MAIL patch clean pv 1 --now >"$W/pv-1.eml"
$MAIL append $BOT "$W/pv-1.eml"
check "a) v1 is read" wait_seen 20 pv-1
$MAIL patch prevlink pv 2 --now |
	sed 's/^Subject: \[PATCH\] \(.*\)(pv 2)/Subject: [PATCH v2] \1(pv 1)/' >"$W/pv-2.eml"
$MAIL append $BOT "$W/pv-2.eml"
check "a) a v2 linking v1 is answered" $MAIL wait-replies $AUTHOR 20 $(mid pv-2)
check "a) ... with LINK_TO_PREVIOUS_VERSION, the Link: quoted; nothing to v1" \
	$MAIL verify $AUTHOR $(p pv-1 pv-2)
check "a) SIGTERM: exit 0" bot_stop

# --- b) to h): per-series, one bot -----------------------------------------
INI=$W/per-series.ini STATE=$W/per-series.db
bot_ini "$INI" "$STATE" "reply_mode = per-series
series_wait = $WAIT
maintainers = $MAINT
trusted_authserv_id = $SRV_AUTHSERV_ID"
bot_start
check "per-series: the bot starts" wait_ready 20

series s1 case,changeid,clean
t0=$(now)
$MAIL append $BOT $(p s1-0 s1-1 s1-2 s1-3)
check "b) a complete series is answered before series_wait ($WAIT s) has passed" \
	$MAIL wait-replies $AUTHOR $((WAIT - 4)) $(mid s1-0) &&
	echo "# b) the reply came $(($(now) - t0)) s after the APPEND"
check "b) one reply, to the cover, findings per patch; none to the patches" \
	$MAIL verify-series $AUTHOR $(p s1-0 s1-1 s1-2 s1-3)

series o1 clean,nosob,twice
for n in o1-2 o1-0 o1-3 o1-1; do $MAIL append $BOT "$W/$n.eml"; sleep 1; done
check "c) out of order (2, cover, 3, 1): answered once all are there" \
	$MAIL wait-replies $AUTHOR $((WAIT - 4)) $(mid o1-0)
check "c) one reply, to the cover, findings per patch" \
	$MAIL verify-series $AUTHOR $(p o1-0 o1-1 o1-2 o1-3)

series lc case,clean,nosob
$MAIL append $BOT $(p lc-1 lc-2 lc-3)
sleep 3
$MAIL append $BOT $(p lc-0)
check "c) a late cover (3 s after all the patches): answered" \
	$MAIL wait-replies $AUTHOR $((WAIT - 4)) $(mid lc-0)
check "c) ... once, to the cover; nothing to patch 1" \
	$MAIL verify-series $AUTHOR $(p lc-0 lc-1 lc-2 lc-3)
series k4 case,clean --version 4 --compact
series k1 clean,twice --no-cover --compact
$MAIL append $BOT $(p k4-0 k4-1 k4-2 k1-1 k1-2)
check "c) [PATCHv4 1/2] and [PATCH1/2] (no cover): both answered" \
	$MAIL wait-replies $AUTHOR $((WAIT - 4)) $(mid k4-0 k1-1)
check "c) ... [PATCHv4 1/2]: once, to the cover" $MAIL verify-series $AUTHOR $(p k4-0 k4-1 k4-2)
check "c) ... [PATCH1/2]: once, to patch 1" $MAIL verify-series $AUTHOR $(p k1-1 k1-2)

series m1 case,clean,changeid
t0=$(now)
$MAIL append $BOT $(p m1-0 m1-1 m1-3)
series n1 case,clean,nosob --no-cover
$MAIL append $BOT $(p n1-1 n1-2 n1-3)
check "e) no cover letter: answered, to patch 1" $MAIL wait-replies $AUTHOR $((WAIT - 4)) $(mid n1-1)
check "e) one reply, to patch 1, findings per patch; none to patches 2 and 3" \
	$MAIL verify-series $AUTHOR $(p n1-1 n1-2 n1-3)
series u1 clean,changeid --no-cover --unthreaded --version 3
$MAIL append $BOT $(p u1-1 u1-2)
check "e) no cover, not threaded: answered, to patch 1 of 2" \
	$MAIL wait-replies $AUTHOR $((WAIT - 4)) $(mid u1-1)
check "e) one reply, to patch 1, with patch 2's findings" \
	$MAIL verify-series $AUTHOR $(p u1-1 u1-2)

left=$((t0 + WAIT - 4 - $(now)))
[ "$left" -gt 0 ] && sleep "$left"
check "d) a missing patch: no reply $((WAIT - 4)) s after the others came (series_wait $WAIT s)" \
	$MAIL none $AUTHOR $(mid m1-0 m1-1 m1-2 m1-3)
check "d) ... and after series_wait, the reply goes out" $MAIL wait-replies $AUTHOR 20 $(mid m1-0) &&
	echo "# d) the reply came $(($(now) - t0)) s after the APPEND"
check "d) one reply, to the cover, with the findings of the patches that came" \
	$MAIL verify-series $AUTHOR $(p m1-0 m1-1 m1-3)

series w1 case,clean
$MAIL append $BOT $(p w1-0 w1-1 w1-2)
check "f) v1 is answered" $MAIL wait-replies $AUTHOR $((WAIT - 4)) $(mid w1-0)
series w2 clean,nosob --version 2 --in-reply-to "$W/w1-0.eml"
$MAIL append $BOT $(p w2-0 w2-1 w2-2)
series c1 clean,clean
$MAIL append $BOT $(p c1-0 c1-1 c1-2)
check "f) a v2 sent in reply to v1's cover: its own reply, to v2's cover" \
	$MAIL wait-replies $AUTHOR $((WAIT - 4)) $(mid w2-0)
check "f) v2's reply lists v2's findings only" \
	$MAIL verify-series $AUTHOR $(p w2-0 w2-1 w2-2)
check "f) v1 still has its one reply" $MAIL verify-series $AUTHOR $(p w1-0 w1-1 w1-2)
# Another series (same version, other total) posted in reply to s1's cover.
series sr twice,clean --in-reply-to "$W/s1-0.eml"
$MAIL append $BOT $(p sr-0 sr-1 sr-2)
check "f) a series sent in reply to another series: its own reply" \
	$MAIL wait-replies $AUTHOR $((WAIT - 4)) $(mid sr-0)
check "f) ... with its own findings only" $MAIL verify-series $AUTHOR $(p sr-0 sr-1 sr-2)

# A maintainer's "tagbot: quiet" under v1's cover: v2 in reply to it is not answered.
series qs case,clean
$MAIL append $BOT $(p qs-0 qs-1 qs-2)
check "f) v1 of a series to be quieted is answered" $MAIL wait-replies $AUTHOR $((WAIT - 4)) $(mid qs-0)
$MAIL request "$W/qs-0.eml" qs-quiet --cmd "tagbot: quiet" >"$W/qs-quiet.eml"
$SRV_DKIM_PYTHON "$top_srcdir/tests/integration/e2e-mail.py" dkim-sign "$W/qs-quiet.eml" \
	>"$W/qs-quiet.signed"
$MAIL send "$W/qs-quiet.signed"
check "f) the maintainer's 'tagbot: quiet' is read" wait_seen 20 qs-quiet
series qt nosob,twice --version 2 --in-reply-to "$W/qs-0.eml"
$MAIL append $BOT $(p qt-0 qt-1 qt-2)

# --- h) restarts ---------------------------------------------------------
series r1 case,clean,nosob
series r3 changeid,clean,twice
t0=$(now)
$MAIL append $BOT $(p r1-0 r1-1 r1-3 r3-0 r3-1 r3-2)
check "h) r1's and r3's mails are read" wait_seen 20 r1-0 r1-1 r1-3 r3-0 r3-1 r3-2
sleep 2
check "h) SIGTERM in the middle of a series wait: exit 0" bot_stop
bot_start
check "h) the bot starts again" wait_ready 20
sleep 2
bot_kill
echo "# h) SIGKILL in the middle of the same wait"
bot_start
check "h) ... and again" wait_ready 20
check "h) after the restarts, the series replies go out once series_wait has passed" \
	$MAIL wait-replies $AUTHOR $((WAIT + 20)) $(mid r1-0 r3-0) &&
	echo "# h) the replies came $(($(now) - t0)) s after the APPEND"

series r2 changeid,twice
$MAIL append $BOT $(p r2-0 r2-1)
check "h) r2's first mails are read" wait_seen 20 r2-0 r2-1
check "h) SIGTERM while a series is incomplete: exit 0" bot_stop
$MAIL append $BOT $(p r2-2)
bot_start
check "h) the patch that came while the bot was down completes the series: answered" \
	$MAIL wait-replies $AUTHOR $((WAIT - 4)) $(mid r2-0)

sleep 7	# a second reply (a resend, a late timer) would have come by now
for s in "s1-0 s1-1 s1-2 s1-3" "o1-0 o1-1 o1-2 o1-3" "lc-0 lc-1 lc-2 lc-3" \
	 "k4-0 k4-1 k4-2" "k1-1 k1-2" "m1-0 m1-1 m1-3" "n1-1 n1-2 n1-3" \
	 "u1-1 u1-2" "w1-0 w1-1 w1-2" "sr-0 sr-1 sr-2" "qs-0 qs-1 qs-2" "w2-0 w2-1 w2-2" "r1-0 r1-1 r1-3" "r2-0 r2-1 r2-2" \
	 "r3-0 r3-1 r3-2"; do
	check "b-h) still exactly one reply to the series ${s%%-*}, nothing to its members" \
		$MAIL verify-series $AUTHOR $(p $s)
done
check "g) a clean series: no reply at all" $MAIL none $AUTHOR $(mid c1-0 c1-1 c1-2)
check "f) a v2 in reply to a quieted v1: no reply" $MAIL none $AUTHOR $(mid qt-0 qt-1 qt-2)
check "b-h) SIGTERM: exit 0" bot_stop
finish
