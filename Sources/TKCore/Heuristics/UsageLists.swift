// Usage tables of issue 15, compiled for tk-agent from general English usage advice (the plain-language
// habit of preferring the short word, the "omit needless words" rule, and the usual usage-guide entries on
// redundancy, uncomparable adjectives and misheard idioms). One entry a line, `phrase => a | b` gives
// replacements; `#` starts a comment. Multi-word entries only where a single word would flag ordinary prose.

enum UsageLists {
    /// Wordy phrases, bureaucratic and legal-sounding words, jargon (category wordy, rule "wordy").
    static let wordy = """
    a number of => some | several | many
    a variety of => various | many
    a wide variety of => many
    a wide range of => many
    a whole host of => many
    an abundance of => many | plenty of
    a plethora of => many
    a myriad of => countless | many
    a majority of the => most of the
    a significant number of => many
    a significant amount of => much
    an excessive amount of => too much
    the bulk of => most of
    the lion's share of => most of
    pertaining to => about
    pertains to => concerns
    in reference to => about
    in connection with => about | with
    as regards => about
    as it relates to => about
    on the subject of => about
    on the topic of => about
    in the area of => in
    in the context of => in
    in the case of => for | in
    in the form of => as
    in the nature of => like
    of the opinion that => think that
    is of the opinion => thinks
    are of the opinion => think
    in the affirmative => yes
    in the negative => no
    answered in the affirmative => said yes
    meets with your approval => you approve
    meet with your approval => you approve
    meets with the approval of => is approved by
    adversely impacted => hurt | harmed
    adversely affected => hurt | harmed
    adversely impact => hurt | harm
    adversely affect => hurt | harm
    negatively impacted => hurt | harmed
    positively impacted => helped
    have an impact on => affect
    has an impact on => affects
    had an impact on => affected
    have an effect on => affect
    has an effect on => affects
    had an effect on => affected
    is reflective of => reflects
    are reflective of => reflect
    is dependent on => depends on
    is dependent upon => depends on
    are dependent on => depend on
    is supportive of => supports
    are supportive of => support
    is suggestive of => suggests
    is in agreement with => agrees with
    are in agreement => agree
    be in a position to => can
    is in a position to => can
    are in a position to => can
    was in a position to => could
    give rise to => cause
    gives rise to => causes
    gave rise to => caused
    make reference to => refer to
    makes reference to => refers to
    made reference to => referred to
    make mention of => mention
    makes mention of => mentions
    made mention of => mentioned
    make use of => use
    makes use of => uses
    made use of => used
    making use of => using
    take action => act
    took action => acted
    take steps to => start to
    reach a conclusion => conclude
    reached a conclusion => concluded
    reach an agreement => agree
    reached an agreement => agreed
    arrive at a decision => decide
    arrived at a decision => decided
    give an indication of => show
    gives an indication of => shows
    provide an explanation of => explain
    provides an explanation of => explains
    perform an analysis of => analyse
    performed an analysis of => analysed
    carry out an evaluation of => evaluate
    conduct a review of => review
    is required to => must
    are required to => must
    it is required that => must
    it is recommended that => we recommend
    it is important to note that =>
    it should be noted that =>
    it is worth noting that =>
    it is interesting to note that =>
    please note that =>
    the question as to whether => whether
    the question of whether => whether
    there can be no doubt that => clearly
    without a doubt => certainly
    for the reason that => because
    by virtue of => by | because of
    by reason of => because of
    on account of => because of
    as a consequence of => because of
    as a result of the fact that => because
    in light of => because of | given
    in view of => because of | given
    notwithstanding the fact that => although
    in the absence of => without
    in the vicinity => near
    at an early date => soon
    at the earliest possible date => as soon as possible
    at the present point in time => now
    at that point in time => then
    at this juncture => now
    as of this date => today
    as of yet => yet
    as yet => yet
    up until => until
    until such a time as => until
    during the time that => while
    for the duration of => during
    in the interim => meanwhile
    on two separate occasions => twice
    on a number of occasions => often | sometimes
    on numerous occasions => often
    time and time again => often | repeatedly
    in a manner of speaking =>
    in a situation where => when
    in situations where => when
    in cases where => when | where
    in instances where => when
    in many cases => often
    in most cases => usually
    in some cases => sometimes
    in all cases => always
    in the majority of cases => usually
    in the majority of instances => usually
    with the possible exception of => except
    except for the fact that => except that
    irrespective of => regardless of
    it is often the case that => often
    it is the case that =>
    the thing is =>
    what happens is =>
    the way in which => how
    the manner in which => how
    the extent to which => how far | how much
    for the most part => mostly
    to a large extent => largely
    to a great extent => largely
    in large part => largely
    in the final analysis => finally
    all things considered =>
    in an effort to => to
    in an attempt to => to
    with a view to => to
    with the aim of => to
    with the intention of => to
    for the purpose of => to | for
    in order that => so that
    so as not to => to avoid
    has the effect of => causes
    serves the purpose of =>
    is used to indicate => indicates
    aforementioned => this | these
    aforesaid => this
    herein => here
    hereby =>
    therein => there | in it
    thereof => of it
    thereto => to it
    heretofore => until now
    henceforth => from now on
    wherein => where | in which
    whereupon => when | then
    forthwith => now | at once
    inasmuch as => because | since
    insofar as => as far as
    in lieu of => instead of
    vis-à-vis => about | compared with
    vis-a-vis => about | compared with
    per se =>
    utilisation => use
    operationalize => use | carry out
    operationalise => use | carry out
    incentivize => encourage
    incentivise => encourage
    finalize => finish
    finalise => finish
    prioritization => priority
    ideate => think up
    ideation => brainstorming
    actionable insights => findings
    going to be able to => will be able to | can
    the fact of the matter is =>
    due to the fact => because
    by the same token => likewise
    as a matter of fact => in fact
    first of all => first
    last of all => last
    each and every one => each | all
    one and the same => the same
    any and all => any | all
    if and when => if | when
    unless and until => until | unless
    when and if => if
    over and above => beyond
    null and void => void
    full and complete => complete
    true and accurate => accurate
    cease and desist => stop
    various different => various | different
    """

    /// Redundancies: the second word repeats what the first says (category wordy, rule "redundancy").
    static let redundancies = """
    rectangular in shape => rectangular
    round in shape => round
    square in shape => square
    circular in shape => circular
    oval in shape => oval
    triangular in shape => triangular
    small in size => small
    large in size => large
    big in size => big
    tiny in size => tiny
    huge in size => huge
    few in number => few
    many in number => many
    blue in color => blue
    red in color => red
    green in color => green
    red in colour => red
    blue in colour => blue
    green in colour => green
    heavy in weight => heavy
    short in duration => short | brief
    brief in duration => brief
    bright in appearance => bright
    old adage => adage
    old proverb => proverb
    old cliché => cliché
    blatantly obvious => obvious
    patently obvious => obvious
    too also => too | also
    also too => too | also
    but however => but | however
    but nevertheless => but | nevertheless
    and moreover => moreover
    and furthermore => furthermore
    and plus => and | plus
    as well as also => as well as
    equally as => equally | as
    both alike => alike
    both together => together
    both of them together => both
    absolutely certain => certain
    absolutely necessary => necessary
    absolutely sure => sure
    completely full => full
    completely empty => empty
    completely finished => finished
    completely destroyed => destroyed
    totally destroyed => destroyed
    entirely eliminate => eliminate
    completely surround => surround
    completely surrounded => surrounded
    completely opposite => opposite
    totally unanimous => unanimous
    unanimously agreed by all => unanimously agreed
    usual custom => custom
    usual habit => habit
    past experience => experience
    past experiences => experiences
    past memories => memories
    future prospects => prospects
    future forecast => forecast
    forward planning => planning
    advance reservations => reservations
    advance notice => notice
    pre-plan => plan
    preplan => plan
    pre-planned => planned
    new beginning => beginning
    new invention => invention
    originally created => created
    first began => began
    first started => started
    began first => began
    begin to start => start
    reply back => reply
    respond back => respond
    return again => return
    reiterate again => reiterate
    repeat the same => repeat
    retreat back => retreat
    recur again => recur
    re-emerge again => re-emerge
    restore back => restore
    resume again => resume
    raise up => raise
    descend down => descend
    sink down => sink
    ascend up => ascend
    share together => share
    assemble together => assemble
    meet together => meet
    mix together => mix
    blend together => blend
    link together => link
    fuse together => fuse
    unite together => unite
    weld together => weld
    cooperate together => cooperate
    attach together => attach
    team up together => team up
    sum total => total
    total sum => sum
    grand total => total
    end product => product
    final end => end
    final conclusion => conclusion
    final completion => completion
    ultimate outcome => outcome
    eventual outcome => outcome
    basic essentials => essentials
    basic necessities => necessities
    necessary requirement => requirement
    necessary requisite => requisite
    mandatory requirement => requirement
    required prerequisite => prerequisite
    integrated whole => whole
    each individual person => each person
    every single one => every one
    every single => every
    close scrutiny => scrutiny
    careful scrutiny => scrutiny
    close proximity => proximity
    exact same => same
    exactly identical => identical
    identical match => match
    equal halves => halves
    two equal halves => halves
    connected together => connected
    joined together => joined
    combined together => combined
    merged together => merged
    surrounded on all sides => surrounded
    orbit around => orbit
    estimated at about => estimated at
    estimated roughly => estimated
    approximately about => about
    roughly about => about
    around about => about
    hot water heater => water heater
    cash money => cash
    kneel down => kneel
    shrug your shoulders => shrug
    shrugged his shoulders => shrugged
    shrugged her shoulders => shrugged
    nodded his head => nodded
    nodded her head => nodded
    nod your head => nod
    blinked his eyes => blinked
    blinked her eyes => blinked
    clapped her hands together => clapped
    clapped his hands together => clapped
    thought to herself => thought
    thought to himself => thought
    said out loud => said
    whispered quietly => whispered
    whispered softly => whispered
    shouted loudly => shouted
    screamed loudly => screamed
    sprinted quickly => sprinted
    ran quickly => ran | sprinted
    hurried quickly => hurried
    rushed quickly => rushed
    crept quietly => crept
    tiptoed quietly => tiptoed
    smiled happily => smiled
    frowned unhappily => frowned
    gasped in surprise => gasped
    armed gunman => gunman
    foreign imports => imports
    general consensus of opinion => consensus
    universal panacea => panacea
    lonely hermit => hermit
    mental telepathy => telepathy
    true facts => facts
    honest truth => truth
    sudden crisis => crisis
    unexpected emergency => emergency
    terrible tragedy => tragedy
    tragic tragedy => tragedy
    temper tantrum => tantrum
    plain and simple => plain | simple
    true and correct => correct
    each and all => all
    period in time => period
    moment in time => moment
    seven a.m. in the morning => seven a.m.
    a.m. in the morning => a.m.
    p.m. in the evening => p.m.
    p.m. at night => p.m.
    12 noon => noon
    12 midnight => midnight
    the reason is because => the reason is that
    the reason was because => the reason was that
    reason is because => reason is that
    because of the fact that => because
    why is because => why is that
    whether or not to => whether to
    off of => off
    outside of => outside
    inside of => inside
    as to whether => whether
    may possibly => may
    might possibly => might
    could possibly => could
    can possibly => can
    still persists => persists
    still continues => continues
    continue to remain => remain
    continues to remain => remains
    and etc => etc
    """

    /// Adjectives that have no degrees: "more unique", "rather unique" (category wordy, rule "uncomparable").
    static let uncomparableAdjectives = """
    unique perfect complete absolute infinite impossible unanimous universal identical supreme ultimate \
    eternal fatal final ideal optimal paramount unprecedented irrevocable irreversible omnipresent omniscient \
    preeminent
    """
    /// Degree words that make those adjectives wrong.
    static let degreeWords = """
    more most less least very rather quite somewhat fairly pretty extremely highly so too increasingly \
    slightly really truly utterly totally completely
    """
    /// Pairs among those that are idiomatic and fine ("quite perfect" is not, but "most essential" reads
    /// as ordinary usage): never flagged.
    static let degreeIdioms = """
    quite complete
    quite impossible
    quite dead
    quite final
    quite certain
    quite right
    quite entire
    so perfect
    too perfect
    more complete
    less complete
    most complete
    very essential
    more essential
    most essential
    quite essential
    least essential
    so essential
    highly essential
    truly unique
    absolutely essential
    rather complete
    so complete
    too complete
    fairly complete
    pretty complete
    really dead
    more dead
    less dead
    so dead
    more impossible
    so impossible
    really impossible
    too ideal
    less than ideal
    very final
    more final
    most final
    pretty final
    totally complete
    completely complete
    utterly complete
    utterly impossible
    totally impossible
    completely impossible
    """

    /// Contradictions in terms (category other, rule "oxymoron").
    static let oxymorons = """
    exact estimate => estimate
    exact estimates => estimates
    approximately exact => exact | approximate
    definite possibility => real possibility
    definite maybe => maybe
    genuine imitation => imitation
    original copy => original
    original copies => originals
    found missing => missing
    increasingly less => less and less
    growing smaller => shrinking
    negative growth => decline
    negative growth rate => decline
    unbiased opinion => impartial view
    mandatory option => requirement
    required option => requirement
    optional requirement => option
    same difference => same thing
    planned spontaneity => spontaneity
    forward retreat => retreat
    forced volunteer => conscript
    voluntary mandate => mandate
    random order => arbitrary order
    constant variable => constant
    temporary fix that became permanent => fix
    open secret => known fact
    """

    /// Mixed metaphors and misheard idioms (category other, rule "mixed_metaphor").
    static let mixedMetaphors = """
    burn that bridge when we come to it => cross that bridge when we come to it
    burn that bridge when I come to it => cross that bridge when I come to it
    cross that bridge when we burn it => cross that bridge when we come to it
    it's not rocket surgery => it's not rocket science
    not rocket surgery => not rocket science
    not brain science => not rocket science | not brain surgery
    wake up and smell the roses => wake up and smell the coffee | stop and smell the roses
    a tough road to hoe => a tough row to hoe
    a hard road to hoe => a hard row to hoe
    hoe the line => toe the line
    tow the line => toe the line
    towing the line => toeing the line
    nip it in the butt => nip it in the bud
    nipped in the butt => nipped in the bud
    for all intensive purposes => for all intents and purposes
    one in the same => one and the same
    could care less => couldn't care less
    case and point => case in point
    deep seeded => deep-seated
    deep-seeded => deep-seated
    baited breath => bated breath
    free reign => free rein
    sneak peak => sneak peek
    peaked my interest => piqued my interest
    peaked his interest => piqued his interest
    peaked her interest => piqued her interest
    peaked their interest => piqued their interest
    tongue and cheek => tongue in cheek
    damp squid => damp squib
    escape goat => scapegoat
    mute point => moot point
    extract revenge => exact revenge
    wet your appetite => whet your appetite
    wet my appetite => whet my appetite
    wet the appetite => whet the appetite
    shoe-in => shoo-in
    shoe in for => shoo-in for
    statue of limitations => statute of limitations
    on tender hooks => on tenterhooks
    make due with => make do with
    by in large => by and large
    irregardless => regardless
    supposably => supposedly
    all intensive purposes => all intents and purposes
    hunger pains => hunger pangs
    just desserts => just deserts
    a mute question => a moot question
    card shark => card sharp
    fall by the waste side => fall by the wayside
    fell by the waste side => fell by the wayside
    piece of mind => peace of mind
    doggy dog world => dog-eat-dog world
    dog eat dog world => dog-eat-dog world
    first-come, first-serve => first come, first served
    first come, first serve => first come, first served
    lo and behold =>
    old wise tale => old wives' tale
    old wives tale => old wives' tale
    slight of hand => sleight of hand
    hare's breath => hair's breadth
    hairs breadth => hair's breadth
    pass mustard => pass muster
    without further adieu => without further ado
    an escape goat => a scapegoat
    """

    /// Clichés, stock similes and corporate speak (category cliche, rule "cliche").
    static let cliches = """
    a drop in the ocean
    a needle in a haystack
    a perfect storm
    a level playing field
    a win-win situation
    win-win situation
    a labour of love
    a labor of love
    a blessing in disguise
    a recipe for disaster
    a step in the right direction
    a whole new ball game
    a whole new level
    ahead of the curve
    ahead of the game
    all things being equal
    an uphill battle
    an uphill struggle
    as bold as brass
    as busy as a bee
    as clear as day
    as cool as a cucumber
    as dead as a doornail
    as fit as a fiddle
    as good as gold
    as hard as nails
    as light as a feather
    as old as the hills
    as plain as day
    as quiet as a mouse
    as right as rain
    as sick as a dog
    as sly as a fox
    as strong as an ox
    as stubborn as a mule
    as white as a sheet
    as white as snow
    at a crossroads
    back to square one
    back to the drawing board
    bang for the buck
    bang for your buck
    beat around the bush
    beating around the bush
    behind the eight ball
    bend over backwards
    bent over backwards
    between a rock and a hard place
    bite the bullet
    bite off more than you can chew
    bite the dust
    bitter end
    blood, sweat and tears
    blood, sweat, and tears
    boil the ocean
    bored to tears
    bored to death
    bottom of the barrel
    break the ice
    broke the ice
    breath of fresh air
    burning the midnight oil
    burn the midnight oil
    busy as a bee
    by leaps and bounds
    calm before the storm
    can of worms
    cat out of the bag
    caught red-handed
    change of heart
    circle the wagons
    cold as ice
    come full circle
    came full circle
    core competency
    core competencies
    crystal clear
    cut corners
    cutting corners
    cut to the chase
    dead as a doornail
    deep dive
    devil's advocate
    dot the i's and cross the t's
    double-edged sword
    down to the wire
    drink the kool-aid
    drop the ball
    dropped the ball
    ducks in a row
    each and every day
    easier said than done
    easy as pie
    eat your own dog food
    elephant in the room
    every cloud has a silver lining
    fall through the cracks
    falls through the cracks
    fell through the cracks
    few and far between
    fish out of water
    fit as a fiddle
    food for thought
    from the ground up
    get the ball rolling
    get on the same page
    give 110 percent
    give 110%
    go the extra mile
    going forward
    moving forward
    golden opportunity
    hit the ground running
    hit the nail on the head
    hold your horses
    ignorance is bliss
    in a nutshell
    in the same boat
    in this day and age
    it goes without saying
    jump on the bandwagon
    jumped on the bandwagon
    keep your eye on the ball
    last but not least
    lay the groundwork
    let the cat out of the bag
    level the playing field
    light at the end of the tunnel
    like a kid in a candy store
    like clockwork
    like two peas in a pod
    low-hanging fruit
    low hanging fruit
    move the goalposts
    moved the goalposts
    move the needle
    moves the needle
    needless to say
    nip it in the bud
    no-brainer
    not rocket science
    off the beaten path
    off the beaten track
    on the same page
    only time will tell
    open a can of worms
    out of the box
    outside the box
    over the moon
    paradigm shift
    par for the course
    pie in the sky
    play it by ear
    plenty of fish in the sea
    pushing the envelope
    push the envelope
    put a pin in it
    quick win
    quick wins
    raise the bar
    raised the bar
    reinvent the wheel
    reinventing the wheel
    run it up the flagpole
    scratch the surface
    scratched the surface
    scratching the surface
    second to none
    see eye to eye
    shift the paradigm
    sick and tired
    since the dawn of time
    since time immemorial
    sink or swim
    sleep like a log
    slept like a log
    slowly but surely
    smooth sailing
    synergy
    synergies
    synergize
    take it to the next level
    take it offline
    take this offline
    the ball is in your court
    the best thing since sliced bread
    the big picture
    the bottom line
    the whole nine yards
    think outside the box
    thinking outside the box
    tip of the iceberg
    to be honest
    touch base
    touching base
    touched base
    tried and true
    tried and tested
    turn over a new leaf
    under the weather
    up in the air
    value-add
    value add
    when all is said and done
    win-win
    with bated breath
    without further ado
    worth its weight in gold
    circle back
    circling back
    mission-critical
    best-in-class
    best of breed
    world-class
    cutting-edge
    bleeding edge
    thought leader
    thought leadership
    move the dial
    drill down
    drill down into
    at this moment in time
    peel the onion
    open the kimono
    boil it down
    helicopter view
    blue-sky thinking
    blue sky thinking
    heavy lifting
    """

    /// Phrases that contain a listed phrase but are literal or fine (matched first, never flagged).
    static let stops = """
    was going forward
    were going forward
    is going forward
    are going forward
    be going forward
    been going forward
    kept going forward
    keep going forward
    was moving forward
    were moving forward
    is moving forward
    are moving forward
    i would argue
    i'd argue
    one could argue
    one might argue
    i argue
    we argue
    i would argue that
    the general public
    """
}
